// TCP service names for ports (`:http`), read once from /etc/services the way
// Go's net package does (src/net/port_unix.go readServices). A `FROM scratch`
// image has no /etc/services, so a few well-known names are built in; Go
// would reject every name there.

import { readFileSync } from 'node:fs';

const SERVICES_FILE = '/etc/services';

const WELL_KNOWN: ReadonlyMap<string, number> = new Map([
  ['ftp', 21],
  ['ssh', 22],
  ['domain', 53],
  ['http', 80],
  ['www', 80],
  ['https', 443],
  ['http-alt', 8080],
  ['webcache', 8080],
]);

/** Parses /etc/services text into name → TCP port; later lines win, as in Go. */
export function parseServices(text: string): Map<string, number> {
  const ports = new Map<string, number>();
  for (const raw of text.split('\n')) {
    const fields = raw.replace(/#.*/, '').trim().split(/\s+/);
    if (fields.length < 2) continue;
    const m = /^([0-9]+)\/tcp$/.exec(fields[1]!);
    const port = m ? Number(m[1]) : 0;
    if (port <= 0) continue;
    for (const [i, name] of fields.entries()) if (i !== 1) ports.set(name, port);
  }
  return ports;
}

let cached: ReadonlyMap<string, number> | undefined;

function services(): ReadonlyMap<string, number> {
  if (!cached) {
    try {
      cached = parseServices(readFileSync(SERVICES_FILE, 'utf8'));
    } catch {
      cached = WELL_KNOWN;
    }
  }
  return cached;
}

/** The TCP port of a service name (lower-case), or undefined. */
export function lookupTcpService(name: string): number | undefined {
  return services().get(name);
}
