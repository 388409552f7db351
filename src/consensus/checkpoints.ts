/**
 * The checkpoint layer of a running node (issue 20), wired in one place:
 *
 *   [checkpoint] enabled ─▶ openCheckpointLayer (src/node.ts, before the network)
 *     CheckpointHistory (src/validators/checkpoint/history.ts) refreshed every poll_interval
 *       ─▶ Backend.checkpoints (block proofs, exit payloads, validators_getCheckpoint…), uptime,
 *          the uptime gauges
 *     a validator key ─▶ startService (from startIbftNetwork, which owns the gossip):
 *       CheckpointService votes on the IBFT topic (tag 0x43, routed by ibftNetwork.ts),
 *       submits with the [checkpoint] key_file (default: the validator key)
 *
 * Nothing here runs on IBFT's path: timers and promises, every base-chain request with a deadline;
 * the base chain down only delays checkpoints (and logs a warning at most every 30 s).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'

import type { ChainStore } from '../chain/store.js'
import { addressOfPrivateKey } from '../config/accounts.js'
import { ConfigError } from '../config/errors.js'
import { parsePrivateKeyHex } from '../config/keys.js'
import type { CheckpointConfig } from '../config/types.js'
import type { Logger } from '../log.js'
import { BaseChain, ManagerCheckpointBase, ManagerReader, type ManagerSet, Submitter } from '../validators/checkpoint/baseChain.js'
import { BaseChainError } from '../validators/checkpoint/baseErrors.js'
import { CheckpointHistory } from '../validators/checkpoint/history.js'
import { CheckpointService, type ProposalView } from '../validators/checkpoint/service.js'
import { CHECKPOINT_STATE_FILE, FileCheckpointStateStore } from '../validators/checkpoint/serviceState.js'
import type { UptimeReport } from '../validators/checkpoint/uptime.js'
import { isCheckpointVoteWire } from '../validators/checkpoint/vote.js'
import type { ValidatorSet } from '../validators/index.js'

/** The same base-chain failure of the history refresh is logged at warn at most this often. */
export const HISTORY_WARN_INTERVAL_MS = 30_000

/** What the RPC and metrics read of checkpoints beyond CheckpointSource. */
export interface CheckpointStatusView {
  /** Checkpoints on the base chain as of the last refresh. */
  count(): bigint
  /** The proposals being voted (this node's service; [] on a full node). */
  proposals(): ProposalView[]
  /** Uptime of the contract's current signers; refreshed from the base chain first. */
  uptime(): Promise<UptimeReport>
  /** The last uptime computed (metrics), undefined before the first. */
  lastUptime(): UptimeReport | undefined
}

export interface CheckpointLayer {
  readonly history: CheckpointHistory
  readonly status: CheckpointStatusView
  /** Starts voting and submitting as this validator. */
  startService(deps: ServiceDeps): void
  /** Tells a checkpoint vote from other IBFT-topic traffic. */
  isVote(wire: Uint8Array): boolean
  receive(wire: Uint8Array): void
  stop(): void
}

export interface ServiceDeps {
  childChainId: bigint
  store: ChainStore
  datadir: string
  signer: { key: Uint8Array; address: Uint8Array }
  daoSetAt(blockHash: Uint8Array): Promise<ValidatorSet>
  broadcast(wire: Uint8Array): void
}

/** checkCheckpointConfig refuses [checkpoint] enabled without what it needs (ConfigError, exit 2). */
export function checkCheckpointConfig(c: CheckpointConfig): void {
  if (!c.enabled) return
  const missing = [
    c.baseRpc === '' ? 'base_rpc' : undefined,
    c.baseChainId === 0 ? 'base_chain_id' : undefined,
    c.manager === '' ? 'manager' : undefined,
  ].filter((m) => m !== undefined)
  if (missing.length > 0)
    throw new ConfigError(
      `[checkpoint] enabled needs ${missing.map((m) => `[checkpoint] ${m}`).join(', ')} (ibex checkpoint deploy prints them)`,
    )
}

/** openCheckpointLayer starts reading the base chain's checkpoints; undefined when [checkpoint] is off. */
export function openCheckpointLayer(c: CheckpointConfig, log: Logger): CheckpointLayer | undefined {
  checkCheckpointConfig(c)
  if (!c.enabled) return undefined
  const chain = new BaseChain(c.baseRpc)
  const reader = new ManagerReader(chain, hexToBytes(c.manager as `0x${string}`))
  const history = new CheckpointHistory({ chain, reader, uptimeWindow: c.uptimeWindow, log })
  let service: CheckpointService | undefined
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let lastUptime: UptimeReport | undefined
  let setCache: { count: bigint; set: ManagerSet } | undefined
  let lastWarnAt = -Infinity
  const currentSigners = async (): Promise<Uint8Array[]> => {
    const view = service?.view
    if (view !== undefined && view.count === history.count) return view.signers
    if (setCache?.count !== history.count) setCache = { count: history.count, set: await reader.set() }
    return setCache.set.signers
  }
  const computeUptime = async () => {
    lastUptime = history.uptime(await currentSigners())
    return lastUptime
  }
  const loop = () => {
    if (stopped) return
    history
      .refresh()
      .then(computeUptime)
      .catch((err: Error) => {
        const now = Date.now()
        const quiet = now - lastWarnAt < HISTORY_WARN_INTERVAL_MS
        if (!quiet) lastWarnAt = now
        log[quiet || !(err instanceof BaseChainError) ? 'debug' : 'warn'](`checkpoint history: ${err.message}`)
      })
      .finally(() => {
        if (!stopped) timer = setTimeout(loop, c.pollIntervalMs)
      })
  }
  timer = setTimeout(loop, 0)
  log.info(`checkpoints: base chain ${c.baseRpc} (chain ${c.baseChainId}), manager ${c.manager}`)

  return {
    history,
    status: {
      count: () => history.count,
      proposals: () => service?.proposals() ?? [],
      async uptime() {
        await history.refresh()
        return computeUptime()
      },
      lastUptime: () => lastUptime,
    },
    startService(d) {
      const submitKey = c.keyFile === undefined ? d.signer.key : readKey(c.keyFile)
      const submitter = new Submitter(chain, submitKey, hexToBytes(addressOfPrivateKey(submitKey) as `0x${string}`), BigInt(c.baseChainId))
      const base = new ManagerCheckpointBase(reader, submitter)
      const s = new CheckpointService({
        childChainId: d.childChainId,
        baseChainId: BigInt(c.baseChainId),
        manager: reader.address,
        params: {
          intervalMs: c.intervalMs,
          maxBlocks: c.maxBlocks,
          baseConfirmations: c.baseConfirmations,
          graceMs: c.graceMs,
          proposerTimeoutMs: c.proposerTimeoutMs,
          pollIntervalMs: c.pollIntervalMs,
        },
        base,
        chain: {
          head: () => d.store.head.header.number,
          hashOf: (n) => d.store.getHashByNumber(n),
          timeOf: (n) => d.store.getBlockByNumber(n)?.header.timestamp,
          daoSetAt: d.daoSetAt,
        },
        signer: d.signer,
        broadcast: d.broadcast,
        store: new FileCheckpointStateStore(join(d.datadir, CHECKPOINT_STATE_FILE), (reason) =>
          log.warn(`checkpoint: ignoring ${CHECKPOINT_STATE_FILE}, it cannot be read: ${reason}`),
        ),
        log,
      })
      service = s
      // the base chain is checked before the first vote: a wrong chain id or no contract is an operator's mistake
      const check = () => {
        if (stopped) return
        base.check(BigInt(c.baseChainId)).then(
          () => {
            if (stopped) return
            s.start()
            log.info(
              `checkpoints: signing as ${bytesToHex(d.signer.address)}, submitting from ${bytesToHex(submitter.address)}, every ${c.intervalMs / 1000} s`,
            )
          },
          (err: Error) => {
            const fatal = err instanceof BaseChainError && (err.reason === 'wrong-chain' || err.reason === 'not-deployed')
            log[fatal ? 'error' : 'warn'](`checkpoints: not started, retrying: ${err.message}`)
            timer = setTimeout(check, Math.max(c.pollIntervalMs, 1000))
          },
        )
      }
      check()
    },
    isVote: isCheckpointVoteWire,
    receive(wire) {
      service?.receive(wire)
    },
    stop() {
      stopped = true
      if (timer !== undefined) clearTimeout(timer)
      service?.stop()
    },
  }
}

function readKey(file: string): Uint8Array {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    throw new ConfigError(`[checkpoint] key_file ${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`)
  }
  return parsePrivateKeyHex(text, `[checkpoint] key_file ${file}`)
}
