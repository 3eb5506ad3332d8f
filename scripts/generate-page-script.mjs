#!/usr/bin/env node
// Writes the HTML topology view's browser script, made by esbuild from
// src/hypernode/exports/view/browser/, into the committed module that
// carries it (scripts/lib/page-script.mjs). Run it after changing browser/.
//
// Usage: node scripts/generate-page-script.mjs

import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { PAGE_SCRIPT_MODULE, pageScript, pageScriptModule } from './lib/page-script.mjs';

const text = pageScriptModule(await pageScript());
writeFileSync(PAGE_SCRIPT_MODULE, text);
console.log(`wrote ${relative(process.cwd(), PAGE_SCRIPT_MODULE)} (${text.length} characters)`);
