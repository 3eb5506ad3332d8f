// What an InfiniBand node's description says, read the way production
// fabrics write it (docs/configuration.md, "InfiniBand without UFM"):
//
// - a managed switch: `MF0;<name>:<model>/U1` (Quantum), whose name is the part
//   between `;` and `:`; any other description is the name as it stands;
// - a host's HCA: `<hostname> <device>` (rdma-ndd's default, e.g.
//   `node-a01 mlx5_5` or `node-a01 HCA-4`);
// - an HCA that kept its firmware's default (`MT4129 ConnectX7   Mellanox
//   Technologies`): no host name at all;
// - the SHARP aggregation node every Quantum switch hosts
//   (`Mellanox Technologies Aggregation Node`): no host
//   (fabric/aggregation-nodes.ts).

/** `MF0;LEAF-07:MQM9701/U1` → `LEAF-07`. */
const QUANTUM_FORM = /^[^;]*;([^:;]+):/;
/** The firmware's own words: `MT<device id> …` or the vendor's name. */
const FIRMWARE_DEFAULT = /^MT\d+$/i;
const VENDOR_WORDS = /Mellanox Technologies|NVIDIA (Corporation|Technologies)/i;

/** A switch's name for people, or '' when its description gives none. */
export function switchName(description: string): string {
  const text = description.trim();
  return QUANTUM_FORM.exec(text)?.[1]?.trim() || text;
}

/** What a host HCA's description names: its host and, after it, the device (`mlx5_3`, `HCA-4`). */
export interface CaName {
  readonly host: string;
  readonly device?: string;
}

/** The host (and device) a CA's description names; undefined when it is empty or the firmware's default. */
export function caName(description: string): CaName | undefined {
  const words = description.trim().split(/\s+/);
  const [host, device] = words;
  if (!host || FIRMWARE_DEFAULT.test(host) || VENDOR_WORDS.test(description)) return undefined;
  return device === undefined ? { host } : { host, device };
}
