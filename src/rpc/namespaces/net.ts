/** The net namespace: network id, listening, peers (p2p arrives with the IBFT network issue). */
import type { Backend } from '../backend.js'
import { toQuantity } from '../hex.js'
import type { Namespace } from '../types.js'

export const netNamespace: Namespace<Backend> = {
  name: 'net',
  methods: {
    // the network id is the chain id, as decimal string (geth)
    net_version: { params: [], handler: (b) => b.chainId.toString(10) },
    // geth answers true unconditionally; the p2p listener itself comes with the IBFT network issue
    net_listening: { params: [], handler: () => true },
    net_peerCount: { params: [], handler: () => toQuantity(0) },
  },
}
