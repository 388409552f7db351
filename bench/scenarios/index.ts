/** Every scenario, in the order a full run takes them (writes last: it restarts nodes and changes state). */
import { batch } from './batch.js'
import { compare } from './compare.js'
import { framing } from './framing.js'
import { heavy } from './heavy.js'
import { logs } from './logs.js'
import { memory } from './memory.js'
import { readmix } from './readmix.js'
import { traces } from './traces.js'
import type { Scenario } from './types.js'
import { writes } from './writes.js'

export const SCENARIOS: Record<string, Scenario> = {
  framing,
  compare,
  readmix,
  batch,
  logs,
  traces,
  memory,
  heavy,
  writes,
}
