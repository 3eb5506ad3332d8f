// A URL as logs, errors and Events show it (src/util/redact-url.ts): userinfo
// and every query value replaced, the rest kept so the URL is still known;
// an endpoint written without a scheme loses what looks like userinfo too.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { redactUrl } from '../../src/util/redact-url.ts';

test('userinfo and query values go, host, port and path stay', () => {
  assert.is(
    redactUrl('https://admin:hunter2@ufm.example.com:8443/graph.yaml?token=t0k&fabric=lab#x'),
    'https://***@ufm.example.com:8443/graph.yaml?token=***&fabric=***',
  );
  assert.is(
    redactUrl('https://ufm.example.com:8443/ufmRest/resources/ports'),
    'https://ufm.example.com:8443/ufmRest/resources/ports',
  );
  assert.is(redactUrl('https://[fd00::1]:8443/a?b=c'), 'https://[fd00::1]:8443/a?b=***');
});

test('an endpoint without a scheme, or text that is no URL, loses userinfo and query', () => {
  assert.is(redactUrl('admin:hunter2@ufm:8080'), '***@ufm:8080');
  assert.is(redactUrl('ufm:8080'), 'ufm:8080');
  assert.is(redactUrl('https://a b@c/?t=1'), 'https://***@c/?t=***');
});

test.run();
