import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { build, buildMembers } from '../../../src/hypernode/model/hypernode-builders.ts';
import { desiredByName, desiredUpdate, needsUpdate } from '../../../src/hypernode/reconcile/desired-objects.ts';
import { anyHyperNode, hyperNodeWithNulls, NODE_NAMES } from '../../support/hypernode-arbitraries.ts';
import { propertyParameters } from '../../support/property.ts';

const discovered = fc
  .tuple(
    fc.subarray(NODE_NAMES, { minLength: 1 }),
    fc.nat({ max: 3 }),
    fc.constantFrom({}, { zone: 'a' }, { constructor: 'b' }),
  )
  .map(([names, tier, labels]) => build('hn-a', tier, buildMembers(names, 'Node'), labels));

test('needsUpdate and desiredUpdate accept any cached HyperNode, and the update they build is what was wanted', () => {
  fc.assert(
    fc.property(fc.oneof(anyHyperNode, hyperNodeWithNulls), discovered, (cachedShape, snapshotItem) => {
      const cached = { ...cachedShape, metadata: { ...cachedShape.metadata, name: 'hn-a', resourceVersion: '42' } };
      const want = desiredByName('label', [snapshotItem]).get('hn-a')!;
      needsUpdate(cached, want);
      const body = desiredUpdate(cached, want);
      assert.equal(body.spec, want.spec);
      assert.is(body.metadata.resourceVersion, '42');
      assert.is(body.status, undefined);
      assert.is(needsUpdate(body, want), false, 'after the update nothing is left to change');
    }),
    propertyParameters(),
  );
});

test.run();
