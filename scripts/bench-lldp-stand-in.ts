// The SNMP stand-in of scripts/bench-lldp.ts in a process of its own, so
// that answering ~1.3 million varbinds per poll does not share an event loop
// with the API server stand-in (a busy loop there would delay SNMP answers
// and make the controller's walks look slower than they are). Started by the
// benchmark with fork(); sends `{ addresses }` once every agent listens and
// exits when the benchmark disconnects.
//
// Arguments: <sus> <community>

import { lldpSwitches } from '../testing/lldp-fabric.ts';
import { startSnmpStandIn } from '../testing/snmp-stand-in.ts';
import { benchFabric } from './bench-lldp-fabric.ts';

const [sus, community] = process.argv.slice(2);
if (!process.send || sus === undefined || community === undefined)
  throw new Error('usage: forked by scripts/bench-lldp.ts with <sus> <community>');
const agents = await startSnmpStandIn(lldpSwitches(benchFabric(Number(sus))), community);
process.send({ addresses: agents.addresses });
process.on('disconnect', () => {
  void agents.close().finally(() => process.exit(0));
});
