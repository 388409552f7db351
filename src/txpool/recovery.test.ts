/**
 * Sender recovery on a Piscina worker pool (recovery.ts): the public key it caches in a transaction
 * is the one ethereumjs recovers itself, for every signed type; a signature ethereumjs refuses is
 * never primed, nor a batch the bounded queue refuses, so validation words the same error and
 * finds the same sender as without the workers. Needs `npm run build`
 * (the worker loads from dist/workers/recover.js).
 */
import { createTx, createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { afterEach, describe, expect, it } from 'vitest'
import { createChainCommon, type GenesisJson } from '../chain/common.js'
import { devAccounts } from '../config/accounts.js'
import { defaultConfig } from '../config/defaults.js'
import { buildGenesis } from '../config/genesis.js'
import { primedSender, RECOVER_BATCH_MAX, SenderRecovery } from './recovery.js'
import { validateTransaction } from './validate.js'

const [alice, bob] = devAccounts(2) as { address: string; privateKey: string }[]
const genesis = buildGenesis({ ...defaultConfig('dev'), datadir: '/tmp/unused' }, [
  alice?.address as string,
]) as unknown as GenesisJson
const common = createChainCommon(genesis)

const recoveries: SenderRecovery[] = []
afterEach(async () => {
  for (const r of recoveries.splice(0)) await r.close()
})

function signed(fields: Record<string, unknown>): Uint8Array {
  const base = { nonce: 0n, to: bob?.address, value: 1n, gasLimit: 21_000n }
  return createTx({ ...base, ...fields } as never, { common })
    .sign(hexToBytes(alice?.privateKey as `0x${string}`))
    .serialize()
}

const pubKeyOf = (tx: TypedTransaction) =>
  (tx as unknown as { cache: { senderPubKey?: Uint8Array } }).cache.senderPubKey

const ctx = {
  common,
  chainId: common.chainId(),
  blockGasLimit: 30_000_000n,
  nextBaseFee: 1n,
  priceLimit: 0n,
  known: () => false,
  account: async () => ({ nonce: 0n, balance: 10n ** 20n }),
}

describe('sender recovery on a worker', () => {
  it('caches the key ethereumjs recovers, for legacy, 2930 and 1559 transactions, in batches', async () => {
    const recovery = new SenderRecovery(2)
    recoveries.push(recovery)
    const raws = [
      signed({ type: 0, gasPrice: 10n ** 9n }),
      signed({ type: 1, gasPrice: 10n ** 9n, accessList: [] }),
      signed({ type: 2, maxFeePerGas: 10n ** 9n, maxPriorityFeePerGas: 1n }),
      ...Array.from({ length: 300 }, (_, i) =>
        signed({ type: 2, nonce: BigInt(i + 1), maxFeePerGas: 10n ** 9n, maxPriorityFeePerGas: 1n }),
      ),
    ]
    const txs = raws.map((raw) => createTxFromRLP(raw, { common }))
    await Promise.all(txs.map((tx) => recovery.prime(tx)))
    for (const [i, tx] of txs.entries()) {
      const primed = pubKeyOf(tx)
      expect(primed).toBeDefined()
      // what ethereumjs recovers on its own from the same bytes
      const own = createTxFromRLP(raws[i] as Uint8Array, { common }).getSenderPublicKey()
      expect(bytesToHex(primed as Uint8Array)).toBe(bytesToHex(own))
      expect(tx.getSenderAddress().toString()).toBe(alice?.address.toLowerCase())
      expect(bytesToHex(primedSender(tx) as Uint8Array)).toBe(alice?.address.toLowerCase())
      const ptx = await validateTransaction(raws[i] as Uint8Array, ctx, tx)
      expect(bytesToHex(ptx.sender)).toBe(alice?.address.toLowerCase())
    }
  })

  it('leaves what does not decode to validation, and a key already known alone', async () => {
    const recovery = new SenderRecovery(1)
    recoveries.push(recovery)
    await expect(recovery.prime(undefined)).resolves.toBeUndefined()
    const tx = createTxFromRLP(signed({ type: 2, maxFeePerGas: 10n ** 9n, maxPriorityFeePerGas: 1n }), { common })
    const own = tx.getSenderPublicKey()
    ;(tx as unknown as { cache: { senderPubKey?: Uint8Array } }).cache.senderPubKey = own
    await recovery.prime(tx)
    expect(pubKeyOf(tx)).toBe(own)
  })

  it('a batch the queue has no room for stays unprimed, and validation still finds its sender', async () => {
    // no queue at all: batches beyond what a thread takes at once (or any, while it starts) are refused
    const recovery = new SenderRecovery(1, 0)
    recoveries.push(recovery)
    const raws = Array.from({ length: RECOVER_BATCH_MAX * 3 }, (_, i) =>
      signed({ type: 2, nonce: BigInt(i), maxFeePerGas: 10n ** 9n, maxPriorityFeePerGas: 1n }),
    )
    const txs = raws.map((raw) => createTxFromRLP(raw, { common }))
    await Promise.all(txs.map((tx) => recovery.prime(tx)))
    const unprimed = txs.filter((tx) => pubKeyOf(tx) === undefined)
    expect(unprimed.length).toBeGreaterThanOrEqual(RECOVER_BATCH_MAX)
    for (const tx of unprimed.slice(0, 3)) {
      const ptx = await validateTransaction(tx.serialize(), ctx, tx)
      expect(bytesToHex(ptx.sender)).toBe(alice?.address.toLowerCase())
    }
  })

  it('after close, priming resolves without a worker and changes nothing', async () => {
    const recovery = new SenderRecovery(1)
    await recovery.close()
    const tx = createTxFromRLP(signed({ type: 2, maxFeePerGas: 10n ** 9n, maxPriorityFeePerGas: 1n }), { common })
    await recovery.prime(tx)
    expect(pubKeyOf(tx)).toBeUndefined()
  })
})
