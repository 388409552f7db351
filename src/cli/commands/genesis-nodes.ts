/**
 * The node directories of `ibex genesis --validators N [--full-nodes M]`: one per node, i from 1,
 * validators first, then full nodes, each a ready datadir with
 *
 *   DIR/node<i>/node.key      p2p identity (Ed25519 seed; its peer id is in the others' bootnodes)
 *   DIR/node<i>/config.toml   genesis = "../genesis.json" (no `network`: the chain is the genesis file's),
 *                             datadir = ".", block time, validator key
 *                             (validators: "../validator-<i-1>.key"), [jsonrpc] port H+i-1,
 *                             [p2p] port P+i-1 with every other node as a bootnode, [ibft] round timeout,
 *                             span_blocks and producers (--span-blocks, --producers)
 *                             with --checkpoint.base-rpc URL: [checkpoint] with the base chain and every
 *                             checkpoint number given to ibex genesis (--checkpoint.interval …), enabled
 *                             = false until `ibex checkpoint deploy --write-config DIR` names the
 *                             contracts; and [jsonrpc] api with bor and validators
 *
 * so `ibex start --config DIR/node<i>/config.toml` brings node i up on this machine (loopback).
 */
import { join } from 'node:path'

import type { IbexConfig } from '../../config/types.js'
import { NODE_KEY_FILE, newNodeKeySeed, peerIdOfSeed } from '../../p2p/identity.js'

/** Address the bootnode entries point at: the nodes of a local network share this machine. */
export const LOCAL_NETWORK_HOST = '127.0.0.1'
/** File name of each node's configuration. */
export const NODE_CONFIG_FILE = 'config.toml'

export interface NodeLayout {
  /** 1-based node number. */
  index: number
  dir: string
  /** Validator key file relative to the node directory, for validators. */
  validatorKey: string | undefined
  seed: Uint8Array
  peerId: string
  httpPort: number
  p2pPort: number
}

export function nodeDirName(index: number): string {
  return `node${index}`
}

/** planNodes lays out `validators` + `fullNodes` nodes under `out` (keys drawn here). */
export function planNodes(
  out: string,
  validatorKeyFiles: string[],
  fullNodes: number,
  httpBasePort: number,
  p2pBasePort: number,
): NodeLayout[] {
  const total = validatorKeyFiles.length + fullNodes
  return Array.from({ length: total }, (_, i) => {
    const seed = newNodeKeySeed()
    const keyFile = validatorKeyFiles[i]
    return {
      index: i + 1,
      dir: join(out, nodeDirName(i + 1)),
      validatorKey: keyFile === undefined ? undefined : `../${keyFile.split(/[\\/]/).at(-1)}`,
      seed,
      peerId: peerIdOfSeed(seed),
      httpPort: httpBasePort + i,
      p2pPort: p2pBasePort + i,
    }
  })
}

/** The files of one node directory (relative name → content). */
export function nodeFiles(node: NodeLayout, all: NodeLayout[], config: IbexConfig): Map<string, string | Uint8Array> {
  const bootnodes = all
    .filter((n) => n !== node)
    .map((n) => `  "/ip4/${LOCAL_NETWORK_HOST}/tcp/${n.p2pPort}/p2p/${n.peerId}",`)
  const role =
    node.validatorKey === undefined
      ? 'full node (follows, serves RPC, forwards transactions)'
      : `validator (key ${node.validatorKey})`
  const lines = [
    `# ibex node ${node.index} of ${all.length}: ${role}; written by \`ibex genesis\`.`,
    `# Start it with: ibex start --config ${join(node.dir, NODE_CONFIG_FILE)}`,
    // the chain is genesis.json's (its own chain id and validators): no network preset applies to it
    'genesis = "../genesis.json"',
    'datadir = "."',
    `block_time = "${duration(config.blockTimeMs)}"`,
    `log_level = "${config.logLevel}"`,
    ...(node.validatorKey === undefined ? [] : [`validator_key = "${node.validatorKey}"`]),
    '',
    '[jsonrpc]',
    `port = ${node.httpPort}`,
    ...(config.checkpoint.baseRpc === '' ? [] : [`api = ${JSON.stringify(CHECKPOINT_NETWORK_APIS)}`]),
    '',
    '[p2p]',
    `port = ${node.p2pPort}`,
    'bootnodes = [',
    ...bootnodes,
    ']',
    '',
    '[ibft]',
    `round_timeout = "${duration(config.ibft.roundTimeoutBaseMs)}"`,
    `span_blocks = ${config.ibft.spanBlocks}`,
    `producers = ${config.ibft.producers}`,
    '',
    ...checkpointLines(config),
  ]
  return new Map<string, string | Uint8Array>([
    [NODE_CONFIG_FILE, lines.join('\n')],
    [NODE_KEY_FILE, node.seed],
  ])
}

/** Namespaces a node of a network with checkpoints serves: the defaults plus the validator layer's. */
export const CHECKPOINT_NETWORK_APIS = ['eth', 'net', 'web3', 'txpool', 'bor', 'validators'] as const

/** The [checkpoint] section of a node with a base chain (none without --checkpoint.base-rpc). */
function checkpointLines(config: IbexConfig): string[] {
  const c = config.checkpoint
  if (c.baseRpc === '') return []
  return [
    '# enabled by `ibex checkpoint deploy --write-config <this directory\'s parent>`, which adds the contracts',
    '[checkpoint]',
    'enabled = false',
    `base_rpc = ${JSON.stringify(c.baseRpc)}`,
    ...(c.baseChainId === 0 ? [] : [`base_chain_id = ${c.baseChainId}`]),
    `interval = "${duration(c.intervalMs)}"`,
    `max_blocks = ${c.maxBlocks}`,
    `base_confirmations = ${c.baseConfirmations}`,
    `grace = "${duration(c.graceMs)}"`,
    `proposer_timeout = "${duration(c.proposerTimeoutMs)}"`,
    `uptime_window = ${c.uptimeWindow}`,
    `poll_interval = "${duration(c.pollIntervalMs)}"`,
    '',
  ]
}

/** A duration as the config file takes it: whole seconds as "2s", else "1500ms". */
function duration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`
}
