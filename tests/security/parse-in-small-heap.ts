// Run by tests/security/bounded-work.test.ts in a child process with a small
// V8 heap (--max-old-space-size): builds one hostile input of the size named
// on its command line, hands it to the decoder the controller uses for it,
// and prints what the decoder said as one JSON line. A decoder that built the
// input's objects would exhaust the heap and crash the child instead.
//
// Usage: node --max-old-space-size=N --import tsx parse-in-small-heap.ts KIND MIB

import { parseConfig } from '../../src/hypernode/config/loader.ts';
import { parseGraphDocument } from '../../src/hypernode/discovery/graph/graph-fabric-graph.ts';
import { decodeLinks } from '../../src/hypernode/discovery/ufm/fabric-resources.ts';
import { decodePorts } from '../../src/hypernode/discovery/ufm/legacy-ports.ts';
import { emptyArrays, MiB, nestedArrays, nestedGraph, nestedYamlGraph } from '../../testing/hostile-inputs.ts';

const [kind, mib] = process.argv.slice(2);
const bytes = Number(mib) * MiB;
const inputs: Record<string, () => void> = {
  'ufm-ports-nested': () => decodePorts(nestedArrays(bytes)),
  'ufm-ports-empty-arrays': () => decodePorts(emptyArrays(bytes)),
  'ufm-links-envelope-nested': () => decodeLinks(`{"data":${nestedArrays(bytes)}}`),
  'graph-json-nested': () => parseGraphDocument(nestedGraph(bytes)),
  'graph-yaml-nested': () => parseGraphDocument(nestedYamlGraph(bytes)),
  'config-nested': () => parseConfig(`networkTopologyDiscovery: ${nestedArrays(bytes)}\n`),
};
const run = inputs[kind ?? ''];
if (!run) throw new Error(`unknown input ${kind}; the inputs are ${Object.keys(inputs).join(', ')}`);
try {
  run();
  console.log(JSON.stringify({ error: null }));
} catch (err) {
  console.log(JSON.stringify({ error: (err as Error).message }));
}
