// The one error for "an answer larger than the reader's size limit", thrown by
// the Kubernetes client and the UFM client alike: retrying the same request
// would only fetch the same oversized body again, so callers test for it to
// stop retrying.

export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
  constructor(
    readonly limitBytes: number,
    message: string,
  ) {
    super(message);
  }
}
