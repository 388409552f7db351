/** The net namespace: network id, and the p2p listener and peers (src/p2p) when p2p is on. */
import type { Backend } from '../backend.js'
import { toQuantity } from '../../util/hex.js'
import { method, type Namespace } from '../types.js'

export const netNamespace: Namespace<Backend> = {
  name: 'net',
  methods: {
    // the network id is the chain id, as decimal string (geth)
    net_version: method([], (b) => b.chainId.toString(10)),
    // without p2p a node is a standalone chain: true, as geth answers when it is not told otherwise
    net_listening: method([], (b) => b.network?.listening() ?? true),
    net_peerCount: method([], (b) => toQuantity(b.network?.peerCount() ?? 0)),
  },
}
