/**
 * The networked part of a node on an IBFT chain, wired in one place (src/node.ts calls
 * startIbftNetwork when p2p is configured):
 *
 *   ChainNetwork (src/p2p) ──tx gossip──▶ pool ──candidates──▶ BlockBuilder.propose
 *        │ IBFT topic ◀──▶ IbftValidator (engine + backend; validators of a multi-validator set only)
 *        │ block sync / announcements ──▶ IbftBlockImporter.importSealed ─┐
 *        │                          IbftValidator.finalize ─▶ commitDecided ┤
 *        ◀── announce (decided here) ◀── onCommitted: filters/subscriptions, pool reset,
 *                                        engine.onNewHead (cancels that height's sequence)
 *
 * A full node (no validator key, or a key outside the set) runs the same minus the engine: it
 * syncs, serves RPC and gossips the transactions it receives to the validators.
 *
 * With spans ([ibft] span_blocks > 0, issue 19) the importer, the engine's context and the builder
 * follow the committee of each height's span (SpanCommittees, from headers), span records are
 * checked against our own validator set at their reference block (read on the exec pool), and a
 * validator runs SpanConsent (spanConsent.ts): its consents share the IBFT topic, told apart by
 * their first byte. A key outside the current committee still runs the engine (idle until a
 * span draws it) and consents when the DAO's set names it.
 *
 * With [checkpoint] enabled (issue 20) a validator also runs the checkpoint service
 * (checkpoints.ts): its votes share the IBFT topic too, tagged 0x43.
 */
import { join } from 'node:path'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'

import { feeRouting, type GenesisJson } from '../chain/common.js'
import type { ChainBlock, ChainStore } from '../chain/store.js'
import type { Common } from '@ethereumjs/common'
import { NETWORK_BLOCK_TIME_MS } from '../config/defaults.js'
import type { IbexConfig } from '../config/types.js'
import { BlockBuilder } from './blockBuilder.js'
import { type CommittedBlock, IbftBlockImporter } from './ibftBlockImporter.js'
import type { Logger } from '../log.js'
import { ChainNetwork, type NetworkInfo } from '../p2p/network.js'
import type { TrieStore } from '../state/index.js'
import type { TxPool } from '../txpool/index.js'
import { FileIbftStateStore, IBFT_STATE_FILE } from './ibft/persist.js'
import { IbftValidator } from './ibftValidator.js'
import type { CheckpointLayer } from './checkpoints.js'
import { isConsentWire, SpanConsent } from './spanConsent.js'
import { spanParamsOf } from './spanParams.js'
import {
  committeeSigners,
  readValidatorSet,
  SpanCommittees,
  type ViewCaller,
} from '../validators/index.js'

export interface IbftNetworkDeps {
  config: IbexConfig
  store: ChainStore
  common: Common
  trie: TrieStore
  genesis: GenesisJson
  pool: TxPool
  /** Told of every block inserted by consensus or sync (filters and subscriptions). */
  emitBlock(block: ChainBlock): void
  /** This node's key when it is one of several validators (it then takes part in consensus). */
  validatorKey: { privateKey: Uint8Array; address: string } | undefined
  /** View calls at a block's state (the exec pool's call lane): the validator set for spans. */
  viewCaller?: ViewCaller
  /** The checkpoint layer ([checkpoint] enabled, issue 20): a validator votes through the IBFT topic. */
  checkpoints?: CheckpointLayer
  /** This node's key when it does not take part in IBFT (a DAO validator outside the set, a sole validator): it still signs checkpoints. */
  checkpointSigner?: { privateKey: Uint8Array; address: string }
  log: Logger
}


export interface RunningNetwork extends NetworkInfo {
  /** Announces a block made outside the engine (the single-validator sealer). */
  announce(block: ChainBlock): void
  stop(): Promise<void>
}

/** The block time multi-validator IBFT runs with: the configured one, else the genesis', else 2 s (0 means "when transactions arrive", which only a sole validator can do). */
export function ibftBlockTimeMs(config: IbexConfig, genesis: GenesisJson, log: Logger): number {
  if (config.blockTimeMs > 0) return config.blockTimeMs
  const fromGenesis = Math.round(Number(genesis.config?.ibft?.blockTime ?? 0) * 1000)
  const ms = fromGenesis > 0 ? fromGenesis : NETWORK_BLOCK_TIME_MS
  log.warn(`block time 0 needs a sole validator; multi-validator IBFT runs with ${ms} ms`)
  return ms
}

export async function startIbftNetwork(deps: IbftNetworkDeps): Promise<RunningNetwork> {
  const { config, store, common, pool, log } = deps
  if (config.p2p === undefined) throw new Error('startIbftNetwork needs [p2p] settings')
  const recipient = deps.genesis.config?.baseFeeRecipient as string | undefined
  const baseFeeRecipient = recipient ? hexToBytes(recipient as `0x${string}`) : undefined
  let network: ChainNetwork | undefined
  let validator: IbftValidator | undefined
  let consent: SpanConsent | undefined
  const spanParams = spanParamsOf(config)
  const caller = deps.viewCaller
  if (spanParams !== undefined && caller === undefined) throw new Error('spans need a view caller (the exec pool)')
  const committees =
    spanParams === undefined
      ? undefined
      : new SpanCommittees(spanParams, { extraDataAt: (n) => store.getBlockByNumber(n)?.header.extraData })
  const spans =
    committees === undefined || caller === undefined
      ? undefined
      : {
          chainId: common.chainId(),
          committees,
          readSet: (hash: Uint8Array) => readValidatorSet(caller, hash),
        }

  const onCommitted = ({ block, source, dropped }: CommittedBlock) => {
    const n = block.header.number
    log.info(
      `${source === 'consensus' ? 'decided' : 'synced'} block ${n} ${bytesToHex(block.hash)} txs=${block.transactions.length}`,
    )
    deps.emitBlock(block)
    pool.onBlock(dropped).catch((err: Error) => log.warn(`txpool reset after block ${n}: ${err.message}`))
    validator?.onNewHead(block)
    consent?.onHead(n)
    if (source === 'consensus') network?.announce(block)
  }
  const importer = new IbftBlockImporter({
    store,
    common,
    baseFeeRecipient,
    syncWrites: true,
    spans,
    onCommitted,
    pooled: (hashHex) => pool.get(hashHex),
  })
  network = await ChainNetwork.start({
    config: config.p2p,
    datadir: config.datadir,
    store,
    pool,
    importBlock: (bytes, durable) => importer.importSealed(bytes, { durable }),
    log,
  })
  const net = network
  try {
    const key = deps.validatorKey
    if (key !== undefined) {
      const address = hexToBytes(key.address.toLowerCase() as `0x${string}`)
      if (spans !== undefined) {
        consent = new SpanConsent({
          chainId: spans.chainId,
          committees: spans.committees,
          store,
          readSet: spans.readSet,
          signer: { key: key.privateKey, address },
          broadcast: (wire) => net.broadcastIbft(wire),
          log,
        })
      }
      const c = consent
      const builder = await BlockBuilder.create({
        store,
        common,
        trie: deps.trie,
        privateKey: key.privateKey,
        ...feeRouting(deps.genesis, key.address),
        syncWrites: true,
        spans:
          committees === undefined || c === undefined
            ? undefined
            : {
                validatorsAt: (h) => {
                  const committee = committees.committeeAt(h)
                  return committee === undefined ? undefined : committeeSigners(committee)
                },
                recordFor: (h) => c.recordFor(h),
              },
      })
      validator = new IbftValidator({
        store,
        builder,
        importer,
        pool,
        signer: { key: key.privateKey, address },
        blockTimeMs: ibftBlockTimeMs(config, deps.genesis, log),
        roundTimeoutBaseMs: config.ibft.roundTimeoutBaseMs,
        broadcast: (wire) => net.broadcastIbft(wire),
        log,
        stateStore: new FileIbftStateStore(join(config.datadir, IBFT_STATE_FILE), (reason) =>
          log.warn(`ibft: ignoring the saved consensus state, it cannot be read: ${reason}`),
        ),
        committees,
      })
      const v = validator
      const cp = deps.checkpoints
      net.onIbftMessage((wire) => {
        if (isConsentWire(wire)) c?.receive(wire)
        else if (cp?.isVote(wire) === true) cp.receive(wire)
        else v.engine.receive(wire)
      })
      net.onIbftPeer(() => {
        v.engine.resend()
        c?.resend()
      })
      v.start()
      c?.onHead(store.head.header.number)
      log.info(`ibft: validating as ${key.address} from block ${store.head.header.number + 1n}`)
    }
    // checkpoints: any node with a key signs when the contract's set names it, in IBFT's set or not
    const cp = deps.checkpoints
    const cpKey = key ?? deps.checkpointSigner
    if (cp !== undefined && cpKey !== undefined) {
      if (caller === undefined) throw new Error('checkpoints need a view caller (the exec pool)')
      cp.startService({
        childChainId: common.chainId(),
        store,
        datadir: config.datadir,
        signer: { key: cpKey.privateKey, address: hexToBytes(cpKey.address.toLowerCase() as `0x${string}`) },
        daoSetAt: (hash) => readValidatorSet(caller, hash),
        broadcast: (wire) => net.broadcastIbft(wire),
      })
      // without the engine, the IBFT topic carries only what this node reads: checkpoint votes
      if (validator === undefined) net.onIbftMessage((wire) => cp.isVote(wire) && cp.receive(wire))
    }
  } catch (err) {
    await net.stop()
    throw err
  }
  return {
    peerCount: () => net.peerCount(),
    listening: () => net.listening(),
    syncStatus: () => net.syncStatus(),
    announce: (block) => net.announce(block),
    async stop() {
      validator?.stop()
      consent?.stop()
      await net.stop()
    },
  }
}
