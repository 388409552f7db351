/**
 * `ibex import FILE`: streams the blocks of a `geth export` file (src/chain/blockFile.ts)
 * through the BlockImporter, logging progress (blocks/s and, for uncompressed files, an ETA
 * from the bytes left) every PROGRESS_INTERVAL_MS.
 *
 * Blocks are committed without fsync (a crash loses at most the tail of the import, which a
 * rerun re-imports: known blocks are skipped); the last commit is fsynced.
 */
import { statSync } from 'node:fs'
import { bytesToHex } from '@ethereumjs/util'
import { readBlockFile } from '../chain/blockFile.js'
import type { Logger } from '../log.js'
import { BlockImporter, type ImporterOptions } from './importer.js'

/** How often import progress is logged. */
export const PROGRESS_INTERVAL_MS = 5_000

/** Meta key recording the head after the last import (its write is the fsync point). */
const LAST_IMPORT_KEY = 'import.head'

export interface ImportFileOptions extends Omit<ImporterOptions, 'syncWrites'> {
  log: Logger
}

/** Imports every block of `file`; returns how many were new (known blocks are skipped). */
export async function importBlocks(file: string, opts: ImportFileOptions): Promise<number> {
  const { log, store } = opts
  const importer = await BlockImporter.create({ ...opts, syncWrites: false })
  const totalBytes = file.endsWith('.gz') ? undefined : statSync(file).size
  const started = performance.now()
  let lastReport = started
  let imported = 0
  let known = 0
  let bytes = 0
  log.info(`importing ${file} on top of block ${store.head.header.number}`)
  for await (const rlp of readBlockFile(file)) {
    const outcome = await importer.import(rlp)
    bytes += rlp.length
    if (outcome.kind === 'known') known++
    else imported++
    const now = performance.now()
    if (now - lastReport >= PROGRESS_INTERVAL_MS) {
      lastReport = now
      log.info(progressLine(store.head.header.number, imported, bytes, totalBytes, (now - started) / 1000))
    }
  }
  await store.putMeta(LAST_IMPORT_KEY, store.head.hash)
  const seconds = (performance.now() - started) / 1000
  log.info(
    `imported ${imported} blocks (${known} already known) in ${seconds.toFixed(1)}s; head ${store.head.header.number} ${bytesToHex(store.head.hash)}`,
  )
  return imported
}

function progressLine(
  head: bigint,
  imported: number,
  bytes: number,
  totalBytes: number | undefined,
  seconds: number,
): string {
  const rate = imported / seconds
  let eta = 'unknown'
  if (totalBytes !== undefined && bytes > 0) {
    const left = ((totalBytes - bytes) / bytes) * seconds
    eta = `${Math.ceil(left)}s`
  }
  return `import: head ${head}, ${imported} blocks, ${rate.toFixed(1)} blocks/s, eta ${eta}`
}
