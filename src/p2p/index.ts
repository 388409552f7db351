/**
 * p2p — how ibex nodes of one network find and talk to each other: libp2p 3 over TCP with Noise
 * encryption, Yamux multiplexing, identify, and gossipsub.
 *
 *                         ┌─────────────────────── ChainNetwork (network.ts) ───────────────────────┐
 *   eth_sendRawTransaction│ pool new pending tx ──▶ /tx gossip ──▶ peers' pools (validators include │
 *   on any node ─▶ pool ──┤                                         it in their proposals)          │
 *                         │ IbftValidator ◀──▶ /ibft gossip (PREPREPARE, PREPARE, COMMIT, ROUND_CHANGE)
 *                         │ block inserted ──▶ /block gossip "I have n" ──▶ peers' BlockSync         │
 *                         │ pending txs ──▶ /tx-hashes announcements ──▶ peers fetch what they lack   │
 *                         │   (txSync.ts)  ◀── /pooled-txs by hash ◀──  (on connect, every interval)  │
 *                         │ BlockSync (sync.ts) ◀── /status, /blocks requests ──▶ peers' chains      │
 *                         └─────────────────── P2pHost (host.ts): libp2p, bootnodes ─────────────────┘
 *
 * Identity: an Ed25519 key in `<datadir>/node.key` (identity.ts), created on first start; the
 * peer id derived from it is what bootnode addresses name. Bootnodes are redialled while
 * disconnected, so a restarted node and its peers find each other again by themselves.
 *
 * What must hold:
 * - Nothing from a peer is trusted: transactions go through pool admission, consensus messages
 *   through signature and certificate checks (src/consensus/ibft), synced blocks through committed
 *   seal verification and full execution (src/consensus/ibftImport.ts) before they touch the chain.
 * - Topics and protocols carry the genesis hash, so nodes of different networks ignore each other.
 * - Every payload and frame is bounded (P2P_MAX_FRAME_BYTES, SYNC_MAX_BLOCKS_PER_REQUEST,
 *   TX_ANNOUNCE_MAX_HASHES, TX_FETCH_MAX_HASHES).
 * - A transaction pending here reaches every connected peer that lacks it within one announce
 *   interval (txSync.ts), whether or not its gossip did.
 * - Node 20 lacks Promise.withResolvers, which libp2p needs: polyfill.ts is imported first.
 */
export { P2pHost, type P2pHostOptions } from './host.js'
export { loadNodeKey, NODE_KEY_FILE, nodeKeyPath, peerIdOfSeed } from './identity.js'
export { ChainNetwork, type ChainNetworkOptions, type NetworkInfo } from './network.js'
export { protocolNames, type ProtocolNames } from './protocol.js'
export { BlockSync, type SyncStatus } from './sync.js'
export { TX_ANNOUNCE_INTERVAL_MS, TxSync, type TxSyncOptions } from './txSync.js'
