/**
 * The eth namespace: one literal table, assembled from one file per concern
 * (chain, block, transaction, state, call, fee, send, logs).
 */
import type { Backend } from '../../backend.js'
import type { Namespace } from '../../types.js'
import { blockMethods } from './block.js'
import { callMethods } from './call.js'
import { chainMethods } from './chain.js'
import { feeMethods } from './fee.js'
import { logMethods } from './logs.js'
import { sendMethods } from './send.js'
import { stateMethods } from './state.js'
import { transactionMethods } from './transaction.js'

export const ethNamespace: Namespace<Backend> = {
  name: 'eth',
  methods: {
    ...chainMethods,
    ...blockMethods,
    ...transactionMethods,
    ...stateMethods,
    ...callMethods,
    ...feeMethods,
    ...sendMethods,
    ...logMethods,
  },
}
