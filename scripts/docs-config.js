#!/usr/bin/env node
// Rewrites README.md's `ibex --help` block and config table from the settings table
// (src/config/settings.ts) through the built CLI: `npm run docs:config`.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

import { refreshReadme } from '../dist/src/cli/commands/help.js'
import { packageRoot } from '../dist/src/config/genesis.js'

const file = join(packageRoot(), 'README.md')
const before = readFileSync(file, 'utf8')
const after = refreshReadme(before)
if (after === before) console.log('README.md is up to date')
else {
  writeFileSync(file, after)
  console.log('README.md: help block and config table regenerated')
}
