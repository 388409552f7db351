import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { DatadirInUseError, openDatabase } from './db.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe('openDatabase', () => {
  it('names the datadir and the process holding it when the database is locked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ibex-db-'))
    dirs.push(dir)
    const held = await openDatabase(join(dir, 'chaindata'))
    try {
      const err = await openDatabase(join(dir, 'chaindata')).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(err).toBeInstanceOf(DatadirInUseError)
      // the holder here is this very process (the lock is per open handle)
      expect((err as Error).message).toBe(`datadir ${dir} is in use by another ibex process (pid ${process.pid})`)
    } finally {
      await held.close()
    }
    const again = await openDatabase(join(dir, 'chaindata'))
    await again.close()
  })
})
