// A URL as a log line, an error, an Event or a condition may show it: without
// the credentials a URL can carry. `https://user:pass@ufm:8443/x?token=t`
// becomes `https://***@ufm:8443/x?token=***`: who wrote a password or an
// access token into an endpoint, a graph URL or --master still sees which URL
// is meant, and no reader of the log or of Events learns the secret. Every
// query value goes, since any parameter name may carry a token.

const REDACTED = '***';

/** Anything before the host that ends in `@` (userinfo), after an optional scheme. */
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)?[^/?#@\s]*@/i;

/**
 * `text` with its userinfo and query values replaced; text that is no
 * `scheme://` URL (an endpoint written `user:pass@ufm:8080`) loses anything
 * shaped like userinfo and its whole query.
 */
export function redactUrl(text: string): string {
  let url: URL | undefined;
  try {
    url = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? new URL(text) : undefined;
  } catch {
    url = undefined;
  }
  if (url === undefined) return text.replace(USERINFO, `$1${REDACTED}@`).replace(/\?.*$/s, `?${REDACTED}`);
  if (url.username === '' && url.password === '' && url.search === '' && url.hash === '') return text;
  const userinfo = url.username !== '' || url.password !== '' ? `${REDACTED}@` : '';
  const query = [...url.searchParams.keys()].map((k) => `${encodeURIComponent(k)}=${REDACTED}`).join('&');
  return `${url.protocol}//${userinfo}${url.host}${url.pathname}${url.search === '' ? '' : `?${query}`}`;
}
