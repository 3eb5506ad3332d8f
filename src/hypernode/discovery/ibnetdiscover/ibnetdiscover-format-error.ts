// The one error an ibnetdiscover output that cannot be read raises: the
// discoverer tells it from a failed run or file by its class, and says the
// output is not usable.

export class IbnetdiscoverFormatError extends Error {
  override readonly name = 'IbnetdiscoverFormatError';
}
