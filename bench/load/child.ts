/**
 * A load generator process: receives one LoadJob over IPC, runs it, sends the LoadResult back
 * and exits. Kept out of the harness's process so its event loop (and CPU pinning) is its own.
 */
import { type LoadJob, runLoad } from './generator.js'

process.once('message', (job: LoadJob) => {
  runLoad(job).then(
    (result) => process.send?.({ ok: true, result }, () => process.exit(0)),
    (err: unknown) => process.send?.({ ok: false, error: String(err) }, () => process.exit(1)),
  )
})
