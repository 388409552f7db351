/** eth_sendRawTransaction: admission (src/txpool/validate.ts) then the pool. */
import type { Backend } from '../../backend.js'
import { toData } from '../../../util/hex.js'
import { Data } from '../../params/index.js'
import { method, type MethodTable } from '../../types.js'

export const sendMethods: MethodTable<Backend> = {
  eth_sendRawTransaction: method([Data], async (b, [raw]) => toData(await b.submitTransaction(raw))),
}
