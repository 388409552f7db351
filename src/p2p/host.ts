/**
 * P2pHost: the libp2p node of an ibex process — TCP, Noise encryption, Yamux multiplexing,
 * identify, and gossipsub for the broadcast topics — with the small API the rest of the node
 * uses: subscribe/publish raw payloads by topic, serve and send length-prefixed requests, and
 * keep the bootnodes connected (a bootnode that goes away is dialled again every
 * P2P_REDIAL_INTERVAL_MS, so a restarted peer is back within that time).
 *
 * Gossip message ids: on content-addressed topics (transactions, block announcements) the id is
 * sha256(topic ‖ data), so the same transaction or announcement published by several nodes
 * travels once; on the IBFT topic it also covers the publisher and sequence number, so a
 * deliberately repeated message (a re-sent ROUND_CHANGE) is delivered again. A copy of a message
 * already seen is recognised by the same id computed on the received frame (`fastMsgIdFn`), before
 * its signature is checked: every node receives each gossiped transaction from each mesh peer, and
 * the ed25519 check of those copies was ~9% of a validator's main thread under a transfer load
 * (bench/validators.ts, 2026-11-28).
 */
import './polyfill.js'

import { createHash } from 'node:crypto'

import { noise } from '@chainsafe/libp2p-noise'
import { yamux } from '@chainsafe/libp2p-yamux'
import { type GossipSub, type GossipsubOpts, gossipsub, type Message } from '@libp2p/gossipsub'
import { identify } from '@libp2p/identify'
import { peerIdFromString } from '@libp2p/peer-id'
import { tcp } from '@libp2p/tcp'
import { multiaddr } from '@multiformats/multiaddr'
import * as lp from 'it-length-prefixed'
import { createLibp2p, type Libp2p } from 'libp2p'

import type { Logger } from '../log.js'
import type { NodePrivateKey } from './identity.js'
import { P2P_MAX_FRAME_BYTES } from './protocol.js'

/** Interface the TCP listener binds (all: peers on other machines must reach validators). */
export const P2P_LISTEN_HOST = '0.0.0.0'
/** Bootnodes that are not connected are dialled again this often. */
export const P2P_REDIAL_INTERVAL_MS = 2_000
/** A dial that has not connected by then is given up until the next redial (generous: a Noise handshake on a saturated CPU takes seconds). */
export const P2P_DIAL_TIMEOUT_MS = 10_000
/** A request whose response has not ended by then is aborted. */
export const P2P_REQUEST_TIMEOUT_MS = 15_000
/** Connections kept at most (validator sets and their full nodes are small). */
export const P2P_MAX_CONNECTIONS = 128
/** Concurrent inbound request streams per connection and protocol. */
export const P2P_MAX_INBOUND_STREAMS = 8

type Services = { identify: ReturnType<ReturnType<typeof identify>>; pubsub: GossipSub }
type Node = Libp2p<Services>
type Stream = Awaited<ReturnType<Node['dialProtocol']>>

export interface P2pHostOptions {
  port: number
  bootnodes: string[]
  privateKey: NodePrivateKey
  /** Topics whose message id is the content hash (see the module doc). */
  contentTopics: string[]
  log: Logger
}

export type GossipHandler = (data: Uint8Array, from: string) => void
export type RequestHandler = (request: Uint8Array, peer: string) => Promise<Uint8Array[]>

export class P2pHost {
  readonly #node: Node
  readonly #log: Logger
  readonly #bootnodes: { addr: string; peer: string | undefined }[]
  readonly #handlers = new Map<string, GossipHandler>()
  readonly #dialing = new Set<string>()
  #redial: NodeJS.Timeout | undefined

  private constructor(node: Node, opts: P2pHostOptions) {
    this.#node = node
    this.#log = opts.log
    this.#bootnodes = opts.bootnodes.map((addr) => ({ addr, peer: /\/p2p\/([^/]+)/.exec(addr)?.[1] }))
    node.services.pubsub.addEventListener('message', (evt) => {
      const msg = evt.detail
      const from = msg.type === 'signed' ? msg.from.toString() : ''
      this.#handlers.get(msg.topic)?.(msg.data, from)
    })
  }

  /** create starts a libp2p node listening on `port` and begins dialling the bootnodes. */
  static async create(opts: P2pHostOptions): Promise<P2pHost> {
    const content = new Set(opts.contentTopics)
    const node = await createLibp2p({
      privateKey: opts.privateKey,
      addresses: { listen: [`/ip4/${P2P_LISTEN_HOST}/tcp/${opts.port}`] },
      transports: [tcp()],
      connectionEncrypters: [noise()],
      streamMuxers: [yamux()],
      connectionManager: { maxConnections: P2P_MAX_CONNECTIONS },
      services: {
        identify: identify(),
        pubsub: gossipsub(gossipOptions(content)),
      },
    })
    const host = new P2pHost(node, opts)
    host.#dialBootnodes()
    host.#redial = setInterval(() => host.#dialBootnodes(), P2P_REDIAL_INTERVAL_MS)
    host.#redial.unref()
    return host
  }

  get peerId(): string {
    return this.#node.peerId.toString()
  }

  /** Listening addresses with our peer id (/ip4/…/tcp/…/p2p/…). */
  get addresses(): string[] {
    return this.#node.getMultiaddrs().map(String)
  }

  listening(): boolean {
    return this.#node.status === 'started' && this.#node.getMultiaddrs().length > 0
  }

  peers(): string[] {
    return this.#node.getPeers().map(String)
  }

  onPeerConnect(fn: (peer: string) => void): void {
    this.#node.addEventListener('peer:connect', (evt) => fn(evt.detail.toString()))
  }

  onPeerDisconnect(fn: (peer: string) => void): void {
    this.#node.addEventListener('peer:disconnect', (evt) => fn(evt.detail.toString()))
  }

  /** Peers known to subscribe to `topic` (a publish reaches them). */
  subscriberCount(topic: string): number {
    return this.#node.services.pubsub.getSubscribers(topic).length
  }

  /** Calls `fn` whenever a peer announces it subscribes to `topic`. */
  onPeerSubscribed(topic: string, fn: () => void): void {
    this.#node.services.pubsub.addEventListener('subscription-change', (evt) => {
      if (evt.detail.subscriptions.some((s) => s.topic === topic && s.subscribe)) fn()
    })
  }

  subscribe(topic: string, handler: GossipHandler): void {
    this.#handlers.set(topic, handler)
    this.#node.services.pubsub.subscribe(topic)
  }

  /** publish gossips `data` on `topic`; failures (no peers yet, shutting down) are logged, not thrown. */
  publish(topic: string, data: Uint8Array): void {
    this.#node.services.pubsub
      .publish(topic, data)
      .catch((err: Error) => this.#log.debug(`p2p: publish on ${topic}: ${err.message}`))
  }

  /** serve answers requests on `protocol`: one request frame in, the handler's frames out. */
  async serve(protocol: string, handler: RequestHandler): Promise<void> {
    await this.#node.handle(
      protocol,
      async (stream, connection) => {
        try {
          const request = await readFirstFrame(stream)
          if (request === undefined) throw new Error('no request')
          for (const frame of await handler(request, connection.remotePeer.toString())) {
            if (!stream.send(lp.encode.single(frame))) await stream.onDrain()
          }
          await stream.close()
        } catch (err) {
          stream.abort(err as Error)
        }
      },
      { maxInboundStreams: P2P_MAX_INBOUND_STREAMS },
    )
  }

  /** request sends one frame to `peer` on `protocol` and collects the answer's frames (at most `maxFrames`). */
  async request(peer: string, protocol: string, request: Uint8Array, maxFrames: number): Promise<Uint8Array[]> {
    const stream = await this.#node.dialProtocol(peerIdFromString(peer), protocol, {
      signal: AbortSignal.timeout(P2P_DIAL_TIMEOUT_MS),
    })
    const timer = setTimeout(() => stream.abort(new Error('request timed out')), P2P_REQUEST_TIMEOUT_MS)
    try {
      stream.send(lp.encode.single(request))
      const frames: Uint8Array[] = []
      for await (const frame of lp.decode(stream, { maxDataLength: P2P_MAX_FRAME_BYTES })) {
        if (frames.length >= maxFrames) throw new Error(`more than ${maxFrames} frames`)
        frames.push(frame.subarray())
      }
      return frames
    } finally {
      clearTimeout(timer)
      stream.close().catch(() => undefined)
    }
  }

  async stop(): Promise<void> {
    if (this.#redial !== undefined) clearInterval(this.#redial)
    await this.#node.stop()
  }

  #dialBootnodes(): void {
    const connected = new Set(this.peers())
    for (const { addr, peer } of this.#bootnodes) {
      if (peer === this.peerId || (peer !== undefined && connected.has(peer)) || this.#dialing.has(addr)) continue
      this.#dialing.add(addr)
      this.#node
        .dial(multiaddr(addr), { signal: AbortSignal.timeout(P2P_DIAL_TIMEOUT_MS) })
        .catch((err: Error) => this.#log.debug(`p2p: dialling ${addr}: ${err.message}`))
        .finally(() => this.#dialing.delete(addr))
    }
  }
}

async function readFirstFrame(stream: Stream): Promise<Uint8Array | undefined> {
  for await (const frame of lp.decode(stream, { maxDataLength: P2P_MAX_FRAME_BYTES })) return frame.subarray()
  return undefined
}

/** The gossipsub options of every host: message ids as in the module doc, copies dropped before their signature check. */
export function gossipOptions(contentTopics: Set<string>): Partial<GossipsubOpts> {
  return {
    allowPublishToZeroTopicPeers: true,
    ignoreDuplicatePublishError: true,
    emitSelf: false,
    floodPublish: true,
    maxInboundDataLength: P2P_MAX_FRAME_BYTES,
    msgIdFn: (msg: Message) => messageId(msg, contentTopics),
    fastMsgIdFn: (msg) => fastMessageId(msg, contentTopics),
  }
}

/**
 * The id of a received frame before validation: what messageId covers (topic and data; the
 * publisher and sequence number off content topics), never the signature. gossipsub caches it
 * only for a message that passed validation, so a frame with this id is a copy of one delivered
 * already (a forged signature on a copy changes nothing: the copy is dropped).
 */
export function fastMessageId(
  msg: { topic: string; data?: Uint8Array; from?: Uint8Array; seqno?: Uint8Array },
  contentTopics: Set<string>,
): string {
  const h = createHash('sha256')
    .update(msg.topic)
    .update(msg.data ?? EMPTY)
  if (!contentTopics.has(msg.topic)) h.update(msg.from ?? EMPTY).update(msg.seqno ?? EMPTY)
  return h.digest('base64')
}

const EMPTY = new Uint8Array(0)

function messageId(msg: Message, contentTopics: Set<string>): Uint8Array {
  const h = createHash('sha256').update(msg.topic).update(msg.data)
  if (!contentTopics.has(msg.topic) && msg.type === 'signed') {
    h.update(msg.from.toString()).update(msg.sequenceNumber.toString(16))
  }
  return new Uint8Array(h.digest())
}
