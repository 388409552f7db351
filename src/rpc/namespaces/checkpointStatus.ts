/**
 * The checkpoint methods of the validators namespace (issue 20; VALIDATORS.md "Interface"), read
 * from the base chain's CheckpointManager through the node's checkpoint layer
 * (src/consensus/checkpoints.ts: Backend.checkpoints and Backend.checkpointStatus):
 *
 *   validators_getCheckpoint(id | "latest")   checkpoint JSON, null when there is none
 *   validators_getCheckpointCount()           checkpoints stored on the base chain (quantity)
 *   validators_getCheckpointProposal()        the checkpoint being voted, null when none:
 *       {proposer, start, end, root, newSigners, newPowers, signers (signatures so far, ascending),
 *        signedPower, totalPower, quorum (> 2/3 signed), submitted (its base tx hash, when this
 *        node proposed and sent it, else null)}
 *   validators_getCheckpointOfBlock(n)        the checkpoint whose range holds block n, null when none yet
 *   validators_getUptime()                    {latest, checkpoints, median, benchmark,
 *       validators: [{signer, seat, signed, of, uptime, health}]} over the last [checkpoint]
 *       uptime_window checkpoints; uptime, median and benchmark are numbers 0..1 (6 decimals),
 *       seat the signer's DAO seat at the head (null when the DAO does not list it)
 *
 * Checkpoint JSON: {id, start, end, root, proposer, signers, baseTxHash} (quantities hex; id a
 * multiple of 10,000; signers ascending; baseTxHash null when unknown). Without [checkpoint]
 * enabled every method answers -32000 `no checkpoint service is configured on this node`.
 */
import { bytesToHex } from '@ethereumjs/util'

import type { CheckpointStatusView } from '../../consensus/checkpoints.js'
import { toQuantity } from '../../util/hex.js'
import { type Checkpoint, CHILD_BLOCK_INTERVAL, NoCheckpointServiceError } from '../../validators/checkpoint/index.js'
import { UPTIME_SCALE } from '../../validators/checkpoint/uptime.js'
import type { Backend } from '../backend.js'
import { InvalidParamsError } from '../errors.js'
import { Uint64 } from '../params/index.js'
import { method, type Namespace, type ParamDecoder } from '../types.js'
import { address, validatorSetAt } from './spanReads.js'

export interface CheckpointJson {
  id: string
  start: string
  end: string
  root: string
  proposer: string
  signers: string[]
  baseTxHash: string | null
}

export function checkpointJson(c: Checkpoint): CheckpointJson {
  return {
    id: toQuantity(c.id),
    start: toQuantity(c.start),
    end: toQuantity(c.end),
    root: bytesToHex(c.root),
    proposer: address(c.proposer),
    signers: c.signers.map(address),
    baseTxHash: c.baseTxHash === undefined ? null : bytesToHex(c.baseTxHash),
  }
}

/** A checkpoint id (hex quantity, a multiple of 10,000) or "latest". */
export const CheckpointId: ParamDecoder<bigint | 'latest'> = {
  optional: false,
  decode(raw) {
    if (raw === 'latest') return 'latest'
    const id = Uint64.decode(raw)
    if (id === 0n || id % CHILD_BLOCK_INTERVAL !== 0n)
      throw new InvalidParamsError(`checkpoint id ${id} is not a positive multiple of ${CHILD_BLOCK_INTERVAL}`)
    return id
  },
}

function status(b: Backend): CheckpointStatusView {
  if (b.checkpointStatus === undefined) throw new NoCheckpointServiceError()
  return b.checkpointStatus
}

function source(b: Backend): NonNullable<Backend['checkpoints']> {
  if (b.checkpoints === undefined) throw new NoCheckpointServiceError()
  return b.checkpoints
}

function ratio(ppm: bigint): number {
  return Number(ppm) / Number(UPTIME_SCALE)
}

async function uptimeJson(b: Backend) {
  const report = await status(b).uptime()
  const head = b.head()
  const seats = new Map<string, bigint>()
  try {
    for (const v of await validatorSetAt(b, head)) seats.set(bytesToHex(v.signer), v.seat)
  } catch {
    // no DAO set readable: seats unknown
  }
  return {
    latest: toQuantity(report.latest),
    checkpoints: report.checkpoints,
    median: ratio(report.medianPpm),
    benchmark: ratio(report.benchmarkPpm),
    validators: report.validators.map((v) => {
      const seat = seats.get(bytesToHex(v.signer))
      return {
        signer: address(v.signer),
        seat: seat === undefined ? null : toQuantity(seat),
        signed: v.signed,
        of: v.of,
        uptime: ratio(v.uptimePpm),
        health: v.health,
      }
    }),
  }
}

export const checkpointMethods: Namespace<Backend>['methods'] = {
  validators_getCheckpoint: method([CheckpointId], async (b, [id]) => {
    const s = source(b)
    const c = id === 'latest' ? await s.latest() : await s.checkpoint(id)
    return c === undefined ? null : checkpointJson(c)
  }),
  validators_getCheckpointCount: method([], (b) => toQuantity(status(b).count())),
  validators_getCheckpointProposal: method([], (b) => {
    const p = status(b).proposals()[0]
    if (p === undefined) return null
    return {
      proposer: address(p.proposer),
      start: toQuantity(p.start),
      end: toQuantity(p.end),
      root: bytesToHex(p.root),
      newSigners: p.newSigners.map(address),
      newPowers: p.newPowers.map(toQuantity),
      signers: p.signers.map(address),
      signedPower: toQuantity(p.signedPower),
      totalPower: toQuantity(p.totalPower),
      quorum: p.quorum,
      submitted: p.submitted ?? null,
    }
  }),
  validators_getCheckpointOfBlock: method([Uint64], async (b, [n]) => {
    const c = await source(b).checkpointOfBlock(n)
    return c === undefined ? null : checkpointJson(c)
  }),
  validators_getUptime: method([], (b) => uptimeJson(b)),
}
