/**
 * The eth_ methods of the accounts the node holds keys for (geth's EthereumAccountAPI and the
 * signing half of its TransactionAPI), served in the eth namespace. On the dev chain the test
 * mnemonic's accounts are unlocked (`[dev] unlocked_accounts`), so anvil's and hardhat's habits
 * work: `cast send --unlocked`, viem's JSON-RPC accounts, ethers' JsonRpcSigner. Elsewhere the
 * node holds none: eth_accounts is [] and every signing request answers geth's `unknown account`.
 *
 *   eth_accounts                   the unlocked addresses
 *   eth_sendTransaction(tx)        fill (accountsTx.ts) ─▶ sign ─▶ the pool, as eth_sendRawTransaction
 *   eth_signTransaction(tx)        fill ─▶ sign ─▶ { raw, tx }
 *   eth_sign(address, data)        EIP-191 personal message, v 27/28
 *   eth_signTypedData_v4(address, typedData)   EIP-712 (accountsTypedData.ts), JSON string or object
 *
 * A send holds its account's queue (UnlockedAccounts.serialize) from nonce to submission, so sends
 * of one account running side by side take consecutive nonces.
 */
import type { Backend } from '../../backend.js'
import { Address, CallObject, Data } from '../../params/index.js'
import { method, type MethodTable } from '../../types.js'
import { toData } from '../../../util/hex.js'
import { personalMessageDigest } from './accountsKeys.js'
import { TypedDataDigest } from './accountsTypedData.js'
import { checkSignable, fillTransaction, requireSignTransactionFields, signTransaction } from './accountsTx.js'

export const accountMethods: MethodTable<Backend> = {
  eth_accounts: method([], (b) => b.accounts.addresses),
  eth_sendTransaction: method([CallObject], (b, [args]) => {
    const from = checkSignable(b.accounts, args)
    return b.accounts.serialize(from, async () => {
      const signed = signTransaction(b.accounts, from, await fillTransaction(b, from, args))
      return toData(await b.submitTransaction(signed.raw))
    })
  }),
  eth_signTransaction: method([CallObject], async (b, [args]) => {
    requireSignTransactionFields(args)
    const from = checkSignable(b.accounts, args)
    const signed = signTransaction(b.accounts, from, await fillTransaction(b, from, args))
    return { raw: toData(signed.raw), tx: signed.json }
  }),
  eth_sign: method([Address, Data], (b, [address, data]) =>
    toData(b.accounts.signLegacy(address, personalMessageDigest(data))),
  ),
  eth_signTypedData_v4: method([Address, TypedDataDigest], (b, [address, digest]) =>
    toData(b.accounts.signLegacy(address, digest)),
  ),
}
