/**
 * The allowed direction of imports between src/'s top-level folders (ARCHITECTURE.md, "Layers").
 * A folder may import its own layer's folders and any lower layer, never a higher one, not even for
 * a type: so no import cycle can form between folders. `npm run lint:deps` checks it (part of npm test).
 * A new top-level folder or file under src/ must be given a layer here, or the check fails.
 */
const LAYERS = [
  ['util', 'types'], // shared codecs (hex, bytes, keccak), the error base, crypto
  ['config'], // the settings table, presets, genesis files, keys
  ['log.ts'], // the pino logger
  ['db'], // RocksDB and its column families
  ['state'], // Merkle-Patricia state over the db: tries, flat caches, batched writes
  ['chain'], // blocks, receipts, indexes, the IBFT header format, genesis
  ['evm'], // ethereumjs set-up and patches, the fast interpreter, the message runner
  ['block'], // executing, importing and committing blocks
  ['trace'], // debug_trace* tracers
  ['simulate'], // eth_simulateV1
  ['exec'], // the thread boundary: worker pools and their tasks
  ['txpool'], // pending and queued transactions
  ['filters'], // log queries, polling filters, subscriptions
  ['p2p'], // libp2p host, gossip, block sync
  ['validators'], // the validator layer: the DAO's validator set at a block, span committees, consent
  ['consensus'], // IBFT: engine, messages, validator, block building, sealing
  ['rpc'], // JSON-RPC: transport, params, namespaces, formats, the error-to-code map
  ['ops', 'explorer'], // health, metrics, faucet, chain-info; the built-in explorer's pages
  ['cli', 'node.ts'], // the command line and the node's wiring
]

const name = (entry) => (entry.endsWith('.ts') ? entry.replace('.', '\\.') + '$' : entry + '/')
const forbidden = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `layer-${layer.join('-').replace('.ts', '')}`,
  comment: `${layer.join(', ')} may not import a higher layer: ${LAYERS.slice(i + 1).flat().join(', ')}`,
  severity: 'error',
  from: { path: `^src/(${layer.map(name).join('|')})` },
  to: { path: `^src/(${LAYERS.slice(i + 1).flat().map(name).join('|')})` },
}))
forbidden.push({
  name: 'src-folder-has-a-layer',
  comment: 'every top-level entry of src/ belongs to a layer in .dependency-cruiser.cjs',
  severity: 'error',
  from: { path: '^src/' },
  to: { path: '^src/', pathNot: `^src/(${LAYERS.flat().map(name).join('|')})` },
})
forbidden.push({
  name: 'src-not-from-bench-or-test',
  comment: 'production code never imports benchmarks or test helpers (tests beside the code may import test/helpers)',
  severity: 'error',
  from: { path: '^src/', pathNot: '\\.(test|bench)\\.ts$' },
  to: { path: '^(bench|test)/' },
})
forbidden.push({
  name: 'no-bench-from-tests',
  comment: 'tests take their helpers from test/helpers, not from bench/',
  severity: 'error',
  from: { path: '\\.test\\.ts$' },
  to: { path: '^bench/' },
})

module.exports = {
  forbidden,
  options: {
    // swc parses TypeScript without the TypeScript compiler API (typescript 7 has none) and keeps type-only imports
    parser: 'swc',
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
  },
}
