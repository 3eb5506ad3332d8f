// What a security team reads to know what we ship: the third-party notices
// (the licence texts of every npm package in the bundle and of the embedded
// Node.js) and SPDX 2.3 SBOMs for an executable and for one platform of the
// image. Every input is a file of the build, so the output is the same for
// the same commit (no wall clock, no random identifiers).

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NAME, root } from './targets.mjs';

/** The licence and notice files a package ships, sorted. */
function licenceFiles(dir) {
  return readdirSync(dir)
    .filter((f) => /^(licen[cs]e|copying|notice)/i.test(f))
    .sort()
    .map((f) => join(dir, f));
}

function section(title, files, fallback) {
  const texts = files.map((f) => readFileSync(f, 'utf8').trimEnd());
  return [`${'-'.repeat(78)}\n${title}\n${'-'.repeat(78)}`, ...(texts.length > 0 ? texts : [fallback])].join('\n\n');
}

/**
 * THIRD_PARTY_NOTICES: `packages` (the bundle's npm packages, as build.mjs
 * lists them) and each embedded Node.js (`runtimes`: `{ version, dir }` of its npm package).
 */
export function thirdPartyNotices(packages, runtimes) {
  const head = [
    `Third-party software in ${NAME}`,
    '',
    `${NAME} is licensed under the Apache License 2.0 (LICENSE). Its executables embed the`,
    'Node.js runtime and a JavaScript bundle that includes the npm packages below; their',
    'licences and notices follow.',
  ].join('\n');
  const seen = new Set();
  const runtimeSections = runtimes
    .filter((r) => !seen.has(r.version) && seen.add(r.version))
    .map((r) =>
      section(
        `Node.js ${r.version} (MIT, with the licences of the code it bundles)`,
        licenceFiles(r.dir),
        'no licence file found',
      ),
    );
  const packageSections = packages.map((p) =>
    section(
      `${p.name} ${p.version} (${p.license})`,
      licenceFiles(join(root, p.dir)),
      `The package ships no licence file; package.json declares: ${p.license}.`,
    ),
  );
  return `${[head, ...runtimeSections, ...packageSections].join('\n\n')}\n`;
}

// ---- SPDX 2.3 ----

const spdxId = (kind, name) => `SPDXRef-${kind}-${name.replace(/[^A-Za-z0-9.-]+/g, '-')}`;
const purlNpm = (name, version) => `pkg:npm/${name.replace('@', '%40')}@${version}`;

/** A package.json licence field as an SPDX expression, or NOASSERTION when it is not one. */
function spdxLicence(licence) {
  return /^[A-Za-z0-9.+-]+( (AND|OR|WITH) [A-Za-z0-9.+-]+)*$/.test(licence ?? '') && licence !== 'NOASSERTION'
    ? licence
    : 'NOASSERTION';
}

function basePackage(id, name, version, extra) {
  return {
    SPDXID: id,
    name,
    versionInfo: version,
    downloadLocation: 'NOASSERTION',
    filesAnalyzed: false,
    licenseConcluded: 'NOASSERTION',
    licenseDeclared: 'NOASSERTION',
    copyrightText: 'NOASSERTION',
    ...extra,
  };
}

/** The packages and relationships of one executable: itself, its Node.js and its npm packages. */
function executableParts({ arch, version, sha256, packages, node }) {
  const exe = basePackage(spdxId('Package', `${NAME}-linux-${arch}`), NAME, version, {
    licenseDeclared: 'Apache-2.0',
    checksums: [{ algorithm: 'SHA256', checksumValue: sha256 }],
    primaryPackagePurpose: 'APPLICATION',
    comment: `Node.js single executable application for linux/${arch}`,
  });
  const runtime = basePackage(spdxId('Package', `node-${arch}`), 'node', node.version.replace(/^v/, ''), {
    licenseDeclared: 'MIT',
    downloadLocation: `https://registry.npmjs.org/${node.package}/-/${node.package}-${node.version.replace(/^v/, '')}.tgz`,
    externalRefs: [
      {
        referenceCategory: 'PACKAGE-MANAGER',
        referenceType: 'purl',
        referenceLocator: purlNpm(node.package, node.version.replace(/^v/, '')),
      },
    ],
    primaryPackagePurpose: 'FRAMEWORK',
    comment: `The Node.js runtime embedded in the executable (npm package ${node.package}); the licences of the code Node.js bundles are in THIRD_PARTY_NOTICES`,
  });
  const npm = packages.map((p) =>
    basePackage(spdxId('Package', `npm-${p.name}-${p.version}`), p.name, p.version, {
      licenseDeclared: spdxLicence(p.license),
      downloadLocation: `https://registry.npmjs.org/${p.name}/-/${p.name.split('/').pop()}-${p.version}.tgz`,
      externalRefs: [
        { referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: purlNpm(p.name, p.version) },
      ],
      primaryPackagePurpose: 'LIBRARY',
    }),
  );
  const contains = [runtime, ...npm].map((p) => ({
    spdxElementId: exe.SPDXID,
    relationshipType: 'CONTAINS',
    relatedSpdxElement: p.SPDXID,
  }));
  return { root: exe, packages: [exe, runtime, ...npm], relationships: contains };
}

function document(name, created, rootId, packages, relationships) {
  const body = {
    packages,
    relationships: [
      { spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: rootId },
      ...relationships,
    ],
  };
  // The namespace must be unique per document: derive it from the content, not from a random UUID.
  const digest = createHash('sha256').update(JSON.stringify(body)).digest('hex');
  return {
    spdxVersion: 'SPDX-2.3',
    dataLicense: 'CC0-1.0',
    SPDXID: 'SPDXRef-DOCUMENT',
    name,
    documentNamespace: `https://spdx.org/spdxdocs/${name}-${digest}`,
    creationInfo: { created, creators: ['Tool: vc-hypernode-controller-manager-scripts/release.mjs'] },
    documentDescribes: [rootId],
    ...body,
  };
}

/** ISO 8601 UTC without fractions, as SPDX wants it. */
export const spdxDate = (seconds) => new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The SBOM of one executable. `exe`: `{ arch, version, sha256, packages, node: { version, package } }`. */
export function executableSbom(exe, created) {
  const parts = executableParts(exe);
  return document(
    `${NAME}-linux-${exe.arch}-${exe.version}`,
    created,
    parts.root.SPDXID,
    parts.packages,
    parts.relationships,
  );
}

/**
 * The SBOM of the image for one platform: the image contains the executable
 * (with what it contains) and the Debian packages whose libraries it copies
 * (`debs`: `{ name, version, architecture, source }`).
 */
export function imageSbom(exe, image, debs, created) {
  const parts = executableParts(exe);
  const img = basePackage(spdxId('Package', `${NAME}-image-linux-${exe.arch}`), `${NAME}-image`, exe.version, {
    licenseDeclared: 'Apache-2.0',
    checksums: [{ algorithm: 'SHA256', checksumValue: image.manifestDigest.replace(/^sha256:/, '') }],
    externalRefs: [
      {
        referenceCategory: 'PACKAGE-MANAGER',
        referenceType: 'purl',
        referenceLocator: `pkg:oci/${NAME}@${image.manifestDigest.replace(':', '%3A')}?arch=${exe.arch}`,
      },
    ],
    primaryPackagePurpose: 'CONTAINER',
    comment: `FROM scratch image for linux/${exe.arch}; the checksum is its OCI manifest digest`,
  });
  const deb = debs.map((d) =>
    basePackage(spdxId('Package', `deb-${d.name}-${d.architecture}`), d.name, d.version, {
      sourceInfo: `built from Debian source package ${d.source}`,
      externalRefs: [
        {
          referenceCategory: 'PACKAGE-MANAGER',
          referenceType: 'purl',
          referenceLocator: `pkg:deb/debian/${d.name}@${encodeURIComponent(d.version)}?arch=${d.architecture}&distro=debian-${d.distroVersion}`,
        },
      ],
      primaryPackagePurpose: 'LIBRARY',
      comment: `licence terms: /usr/share/doc/${d.name}/copyright in the image`,
    }),
  );
  const relationships = [
    ...[parts.root, ...deb].map((p) => ({
      spdxElementId: img.SPDXID,
      relationshipType: 'CONTAINS',
      relatedSpdxElement: p.SPDXID,
    })),
    ...parts.relationships,
  ];
  return document(
    `${NAME}-image-linux-${exe.arch}-${exe.version}`,
    created,
    img.SPDXID,
    [img, ...parts.packages, ...deb],
    relationships,
  );
}

/** The repository's LICENSE, required in every release. */
export function licensePath() {
  const path = join(root, 'LICENSE');
  if (!existsSync(path)) throw new Error(`${path} is missing`);
  return path;
}
