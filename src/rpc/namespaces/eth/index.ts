/**
 * The eth namespace: one literal table, assembled from one file per concern
 * (chain, block, transaction, state, call, fee, send, logs, filters), and the methods of the
 * accounts the node signs for (../dev/accounts.ts: eth_accounts, eth_sendTransaction, eth_sign…).
 */
import type { Backend } from '../../backend.js'
import type { Namespace } from '../../types.js'
import { accountMethods } from '../dev/accounts.js'
import { blobFeeMethods } from './blobFee.js'
import { blockMethods } from './block.js'
import { callMethods } from './call.js'
import { chainMethods } from './chain.js'
import { configMethods } from './config.js'
import { createAccessListMethods } from './createAccessList.js'
import { feeMethods } from './fee.js'
import { filterMethods } from './filters.js'
import { logMethods } from './logs.js'
import { getProofMethods } from './getProof.js'
import { getStorageValuesMethods } from './getStorageValues.js'
import { sendMethods } from './send.js'
import { simulateMethods } from './simulate.js'
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
    ...filterMethods,
    ...blobFeeMethods,
    ...configMethods,
    ...getStorageValuesMethods,
    ...getProofMethods,
    ...createAccessListMethods,
    ...simulateMethods,
    ...accountMethods,
  },
}
