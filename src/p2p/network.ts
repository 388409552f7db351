/**
 * ChainNetwork: everything an ibex node does over libp2p, on top of P2pHost — transaction gossip
 * (our pool's new pending transactions out in batches (txGossip.ts), peers' into our pool), announcement and fetch of
 * pending transactions by hash (txSync.ts: what gossip missed reaches every peer that lacks it),
 * IBFT consensus messages, announcements of inserted blocks, and block sync (sync.ts). It is also
 * what net_peerCount, net_listening and eth_syncing read.
 */
import { bytesToHex } from '@ethereumjs/util'
import { keccak256 } from '../util/keccak.js'

import type { ChainBlock, ChainStore } from '../chain/store.js'
import type { P2pConfig } from '../config/types.js'
import type { Logger } from '../log.js'
import type { TxPool } from '../txpool/index.js'
import { P2pHost } from './host.js'
import { loadNodeKey } from './identity.js'
import { decodeBlockRef, encodeBlockRef, type ProtocolNames, protocolNames } from './protocol.js'
import { BlockSync, type SyncStatus } from './sync.js'
import { TX_ANNOUNCE_INTERVAL_MS, TxSync } from './txSync.js'
import { decodeTxBatch, TxGossipBatcher } from './txGossip.js'

/** Hashes of transactions that came from peers (gossip or fetch), remembered so that our pool's "new pending" echo does not gossip them back. */
export const TX_GOSSIP_SEEN_MAX = 16_384

/** What the RPC layer reads about the network (net_*, eth_syncing). */
export interface NetworkInfo {
  peerCount(): number
  listening(): boolean
  syncStatus(): SyncStatus | undefined
}

export interface ChainNetworkOptions {
  config: P2pConfig
  datadir: string
  store: ChainStore
  pool: TxPool
  /** Verifies and commits a decided block from a peer (`durable` false: no fsync needed, see BlockSyncOptions). */
  importBlock(bytes: Uint8Array, durable: boolean): Promise<'imported' | 'known'>
  log: Logger
}

export class ChainNetwork implements NetworkInfo {
  readonly host: P2pHost
  readonly names: ProtocolNames
  readonly #sync: BlockSync
  readonly #txSync: TxSync
  readonly #o: ChainNetworkOptions
  readonly #fromGossip = new Set<string>()
  readonly #batcher: TxGossipBatcher

  private constructor(host: P2pHost, names: ProtocolNames, opts: ChainNetworkOptions) {
    this.host = host
    this.names = names
    this.#o = opts
    this.#batcher = new TxGossipBatcher((batch) => host.publish(names.txBatchTopic, batch))
    this.#sync = new BlockSync({ host, names, store: opts.store, importBlock: opts.importBlock, log: opts.log })
    this.#txSync = new TxSync({
      host,
      names,
      pool: opts.pool,
      announceIntervalMs: opts.config.txAnnounceIntervalMs ?? TX_ANNOUNCE_INTERVAL_MS,
      submit: (raw, hashHex) => this.#admit(raw, hashHex),
      log: opts.log,
    })
  }

  /** start opens the libp2p node (identity from `<datadir>/node.key`) and joins the topics. */
  static async start(opts: ChainNetworkOptions): Promise<ChainNetwork> {
    const names = protocolNames(opts.store.genesisHash)
    const host = await P2pHost.create({
      port: opts.config.port,
      bootnodes: opts.config.bootnodes,
      privateKey: await loadNodeKey(opts.datadir),
      contentTopics: [names.txTopic, names.txBatchTopic, names.blockTopic],
      log: opts.log,
    })
    const net = new ChainNetwork(host, names, opts)
    try {
      await net.#sync.start()
      net.#joinTopics()
      await net.#txSync.start()
    } catch (err) {
      await host.stop()
      throw err
    }
    opts.log.info(`p2p: listening on ${host.addresses.join(', ')} (peer id ${host.peerId})`)
    return net
  }

  #joinTopics(): void {
    const { pool } = this.#o
    const { host, names } = this
    // single transactions: what nodes before batching (txGossip.ts) send
    host.subscribe(names.txTopic, (raw) => void this.#admit(raw, bytesToHex(keccak256(raw))))
    host.subscribe(names.txBatchTopic, (data) => {
      for (const raw of decodeTxBatch(data) ?? []) void this.#admit(raw, bytesToHex(keccak256(raw)))
    })
    pool.onNewTx((ptx) => {
      if (this.#fromGossip.delete(ptx.hashHex)) return
      // a transaction gossiped to nobody is marked seen and never sent again: it is left to the
      // announcements (txSync.ts), which reach each peer as it connects
      if (host.subscriberCount(names.txBatchTopic) > 0) this.#batcher.add(ptx.tx.serialize())
    })
    host.subscribe(names.blockTopic, (data, from) => {
      const ref = decodeBlockRef(data)
      if (ref !== undefined && from !== '') this.#sync.noteHead(from, ref.number)
    })
  }

  /** Offers a transaction from a peer to our pool; a refusal is logged (debug), not thrown. */
  async #admit(raw: Uint8Array, hashHex: string): Promise<void> {
    this.#remember(hashHex)
    try {
      await this.#o.pool.submit(raw)
    } catch (err) {
      this.#fromGossip.delete(hashHex)
      this.#o.log.debug(`p2p: transaction ${hashHex} from a peer not admitted: ${(err as Error).message}`)
    }
  }

  #remember(hashHex: string): void {
    if (this.#fromGossip.size >= TX_GOSSIP_SEEN_MAX) {
      const oldest = this.#fromGossip.values().next().value
      if (oldest !== undefined) this.#fromGossip.delete(oldest)
    }
    this.#fromGossip.add(hashHex)
  }

  /** Consensus messages from peers go to `handler`. */
  onIbftMessage(handler: (wire: Uint8Array) => void): void {
    this.host.subscribe(this.names.ibftTopic, (data) => handler(data))
  }

  /** Calls `fn` when a peer starts listening to consensus messages (a validator joined or came back). */
  onIbftPeer(fn: () => void): void {
    this.host.onPeerSubscribed(this.names.ibftTopic, fn)
  }

  broadcastIbft(wire: Uint8Array): void {
    this.host.publish(this.names.ibftTopic, wire)
  }

  /** Tells peers we have `block` (they fetch it if they lack it). */
  announce(block: ChainBlock): void {
    this.host.publish(this.names.blockTopic, encodeBlockRef({ number: block.header.number, hash: block.hash }))
  }

  peerCount(): number {
    return this.host.peers().length
  }

  listening(): boolean {
    return this.host.listening()
  }

  syncStatus(): SyncStatus | undefined {
    return this.#sync.status()
  }

  async stop(): Promise<void> {
    this.#batcher.stop()
    this.#sync.stop()
    this.#txSync.stop()
    await this.host.stop()
  }
}
