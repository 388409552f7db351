/** The bare node:http server (bench/peers/bare-server.ts) as a node under test: the framing ceiling. */
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { waitForRpc } from '../rpc.js'
import { freePort, spawnTracked } from './process.js'
import type { RunningNode } from './types.js'

const SERVER = join(dirname(fileURLToPath(import.meta.url)), 'bare-server.js')

export async function startBare(cpus: string | undefined): Promise<RunningNode> {
  const port = await freePort()
  const proc = spawnTracked('node:http', process.execPath, [SERVER, String(port)], { cpus })
  const url = `http://127.0.0.1:${port}`
  await waitForRpc(url, proc)
  return { name: 'node:http', url, proc, version: `node:http ${process.version}`, stop: () => proc.stop() }
}
