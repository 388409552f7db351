/**
 * One fee rule on every preset (issue 23): on dev, testnet and mainnet the whole fee of every
 * transaction — the EIP-1559 base fee and the tip — reaches the DAO's RevenuePool, from block 1 on;
 * the sealing validator gets none of it. Each preset is started from its own genesis (`ibex genesis
 * --network <preset> --validators 1`: the preset's config, DAO and fee routing, one fresh validator
 * seated), transactions of every type are sent, and every block from 1 to the head is checked: its
 * `miner` is the pool and the pool gained exactly the fees its receipts paid. The pool then holds
 * that revenue as transactional revenue, distributed only from its transactional start.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { Chain, type Signer } from '../../scripts/dao/client.js'
import { DAO_ADDRESSES, devWallet } from '../../scripts/dao/plan.js'
import { cleanupNodes } from '../helpers/node.js'
import { startPresetNode } from './presetNode.js'

const GWEI = 1_000_000_000n
const POOL = DAO_ADDRESSES.RevenuePool
const hex = (n: bigint | number) => `0x${BigInt(n).toString(16)}`

afterAll(async () => {
  await cleanupNodes()
})

describe.each(['dev', 'testnet', 'mainnet'])('the %s preset', (network) => {
  it(
    'pays the base fee and the tip of every transaction to the RevenuePool from block 1, nothing to the validator',
    { timeout: 120_000 },
    async () => {
      const sender = devWallet(0)
      const { node, genesis, validator } = await startPresetNode(network, {
        prefund: [`${sender.address}=1000ether`],
        blockTime: '1s',
      })
      // the rule as the genesis states it
      expect(genesis.config.baseFeeRecipient).toBe(POOL)
      expect(genesis.config.ibft.feeRecipient).toBe(POOL)
      const chain = new Chain(node.url)
      const from: Signer = chain.signer(sender.privateKey)
      expect(await chain.balance(POOL, '0x0')).toBe(0n)
      const validatorAtGenesis = await chain.balance(validator, '0x0')

      // a plain transfer with a 1 gwei tip, a contract call with a 3 gwei tip, a legacy transaction
      const raws = [
        await from.wallet.signTransaction({
          type: 2,
          chainId: await chain.chainId(),
          nonce: 0,
          to: devWallet(1).address,
          value: 1n,
          gasLimit: 21_000n,
          maxFeePerGas: 50n * GWEI,
          maxPriorityFeePerGas: GWEI,
        }),
        await from.wallet.signTransaction({
          type: 2,
          chainId: await chain.chainId(),
          nonce: 1,
          to: DAO_ADDRESSES.DaoLens,
          data: '0x', // no such function: a call that runs code and reverts, fee paid all the same
          gasLimit: 100_000n,
          maxFeePerGas: 50n * GWEI,
          maxPriorityFeePerGas: 3n * GWEI,
        }),
        await from.wallet.signTransaction({
          type: 0,
          chainId: await chain.chainId(),
          nonce: 2,
          to: devWallet(2).address,
          value: 1n,
          gasLimit: 21_000n,
          gasPrice: 20n * GWEI,
        }),
      ]
      const receipts = []
      for (const raw of raws) receipts.push(await chain.receipt(await chain.rpc('eth_sendRawTransaction', [raw])))
      const head = BigInt(receipts[receipts.length - 1].blockNumber)
      let tips = 0n

      let total = 0n
      for (let n = 1n; n <= head; n++) {
        const block = await chain.rpc('eth_getBlockByNumber', [hex(n), false])
        expect(block.miner, `block ${n} miner`).toBe(POOL.toLowerCase())
        const blockReceipts = await chain.rpc('eth_getBlockReceipts', [hex(n)])
        let fees = 0n
        for (const r of blockReceipts) {
          fees += BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice)
          tips += BigInt(r.gasUsed) * (BigInt(r.effectiveGasPrice) - BigInt(block.baseFeePerGas))
        }
        const gained = (await chain.balance(POOL, hex(n))) - (await chain.balance(POOL, hex(n - 1n)))
        expect(gained, `block ${n}: the pool gains the base fee and the tips`).toBe(fees)
        total += fees
      }
      expect(tips).toBeGreaterThan(0n)
      expect(total).toBeGreaterThan(0n)
      expect(await chain.balance(POOL, hex(head))).toBe(total)
      // what the sender paid beyond its values is exactly what the pool got
      const paid = (await chain.balance(sender.address, '0x0')) - (await chain.balance(sender.address, hex(head))) - 2n
      expect(paid).toBe(total)
      expect(await chain.balance(validator, hex(head))).toBe(validatorAtGenesis)

      // the pool holds it as transactional revenue: distributed only from its start
      const pool = chain.contract('RevenuePool', POOL)
      const at = { block: hex(head) }
      expect(await pool.read('heldTransactionalRevenue', [], at)).toBe(total)
      const started = await pool.read('transactionalRevenueStarted', [], at)
      const blockTime = BigInt((await chain.rpc('eth_getBlockByNumber', [hex(head), false])).timestamp)
      expect(started).toBe(blockTime >= (await pool.read('transactionalRevenueStart', [], at)))
      expect(await pool.read('pendingRevenue', [], at)).toBe(started ? total : 0n)
      if (network === 'mainnet') expect(started).toBe(false) // 12 months after the mainnet genesis
      if (network === 'dev') expect(started).toBe(true) // 120 s after the dev genesis at time 0
    },
  )
})
