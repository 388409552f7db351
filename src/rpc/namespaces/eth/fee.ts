/**
 * Fee methods: eth_gasPrice, eth_maxPriorityFeePerGas, eth_feeHistory.
 *
 * The tip suggestion follows geth's oracle in spirit: the 60th percentile of the lowest
 * tips paid in each of the last 20 blocks, DEFAULT_TIP_WEI when there were none, and never
 * below the price limit (a lower suggestion would be refused by our own pool). eth_gasPrice
 * is that tip plus the head's base fee, as geth answers it — equal to the price limit when one
 * is enforced and the chain is quiet, as the spec asks.
 *
 * Departure from geth, on purpose: where the pool enforces a minimum tip above geth's 1 wei default
 * (testnet and mainnet: 1 gwei), eth_feeHistory floors every reward at that minimum. geth answers 0
 * for an empty block, and our public chains seal a block every 2 s whether or not it carries
 * transactions, so a quiet chain's history is all zeros; alloy (cast, forge) then falls back to a
 * 1 wei tip, as do other estimators that read the rewards, and our own pool refuses it
 * ("transaction underpriced: gas tip cap 1, minimum needed 1000000000"). A tip cap below the
 * minimum is always refused, so the floor only takes away suggestions that cannot work. Without an
 * enforced minimum (dev, a chain from a geth genesis at 1 wei) the rewards are geth's.
 */
import type { ChainBlock } from '../../../chain/store.js'
import { effectiveTip } from '../../../chain/fees.js'
import { FOREIGN_CHAIN_PRICE_LIMIT_WEI } from '../../../config/presets.js'
import { type Backend, resolveBlock } from '../../backend.js'
import { InvalidParamsError } from '../../errors.js'
import { toQuantity } from '../../../util/hex.js'
import { BlockTag, FloatArray, HexOrDecimal64, optional } from '../../params/index.js'
import { method, type MethodTable } from '../../types.js'

/** Tip suggested when recent blocks carry no transactions (1 gwei). */
export const DEFAULT_TIP_WEI = 1_000_000_000n
/** Blocks the tip oracle looks back over. */
export const GAS_PRICE_ORACLE_BLOCKS = 20
/** Percentile of recent tips suggested. */
export const GAS_PRICE_ORACLE_PERCENTILE = 60
/** Most blocks one eth_feeHistory call covers (geth: 1024). */
export const FEE_HISTORY_MAX_BLOCKS = 1024
/** eth_feeHistory without reward percentiles: no `reward` field. */
const NO_PERCENTILES: readonly number[] = Object.freeze([])

function suggestTip(b: Backend): bigint {
  const tips: bigint[] = []
  const head = b.head().header.number
  for (let n = head; n >= 0n && n > head - BigInt(GAS_PRICE_ORACLE_BLOCKS); n--) {
    const block = b.blockByNumber(n)
    if (block === undefined) break
    const baseFee = block.header.baseFeePerGas ?? 0n
    const blockTips = block.transactions
      .map((tx) => effectiveTip(tx, baseFee))
      .sort((x, y) => (x < y ? -1 : x > y ? 1 : 0))
    tips.push(...blockTips.slice(0, 3))
  }
  let tip = DEFAULT_TIP_WEI
  if (tips.length > 0) {
    tips.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0))
    tip = tips[Math.floor(((tips.length - 1) * GAS_PRICE_ORACLE_PERCENTILE) / 100)] ?? DEFAULT_TIP_WEI
  }
  const limit = b.priceLimit
  return tip < limit ? limit : tip
}

/**
 * rewardFloor is the lowest reward eth_feeHistory reports: the pool's price limit when it is above
 * geth's default of 1 wei (FOREIGN_CHAIN_PRICE_LIMIT_WEI), else 0 — geth's answer (module doc).
 */
export function rewardFloor(priceLimit: bigint): bigint {
  return priceLimit > FOREIGN_CHAIN_PRICE_LIMIT_WEI ? priceLimit : 0n
}

function rewardsOf(block: ChainBlock, percentiles: readonly number[], b: Backend): bigint[] {
  const floor = rewardFloor(b.priceLimit)
  const rewards = gethRewardsOf(block, percentiles, b)
  if (floor === 0n) return rewards
  return rewards.map((r) => (r < floor ? floor : r))
}

/** gethRewardsOf is geth's reward per percentile: the tip at which that share of the block's gas was paid. */
function gethRewardsOf(block: ChainBlock, percentiles: readonly number[], b: Backend): bigint[] {
  if (block.transactions.length === 0) return percentiles.map(() => 0n)
  const baseFee = block.header.baseFeePerGas ?? 0n
  const receipts = b.receipts(block.hash) ?? []
  const items = block.transactions
    .map((tx, i) => {
      const prev = i === 0 ? 0n : (receipts[i - 1]?.cumulativeGasUsed ?? 0n)
      return { tip: effectiveTip(tx, baseFee), gas: (receipts[i]?.cumulativeGasUsed ?? 0n) - prev }
    })
    .sort((x, y) => (x.tip < y.tip ? -1 : x.tip > y.tip ? 1 : 0))
  const gasUsed = block.header.gasUsed
  return percentiles.map((p) => {
    const threshold = (Number(gasUsed) * p) / 100
    let sum = 0
    for (const item of items) {
      sum += Number(item.gas)
      if (sum >= threshold) return item.tip
    }
    return items.at(-1)?.tip ?? 0n
  })
}

/** Share of the block's blob gas limit its blobs used (geth: blobGasUsed / max blob gas). */
function blobGasUsedRatio(block: ChainBlock): number {
  const h = block.header
  if (!h.common.isActivatedEIP(4844)) return 0
  const max = h.common.getBlobGasSchedule().maxBlobGasPerBlock
  return max === 0n ? 0 : Number(h.blobGasUsed ?? 0n) / Number(max)
}

export const feeMethods: MethodTable<Backend> = {
  eth_gasPrice: method([], (b) => {
    // geth: the suggested tip plus the head's base fee. Priced by the next block's base fee (lower
    // after a block under its target), a legacy transaction failed eth_estimateGas at the head.
    const price = (b.head().header.baseFeePerGas ?? 0n) + suggestTip(b)
    const limit = b.priceLimit
    return toQuantity(price < limit ? limit : price)
  }),
  eth_maxPriorityFeePerGas: method([], (b) => toQuantity(suggestTip(b))),
  eth_feeHistory: method(
    // geth declares the count math.HexOrDecimal64: cast and alloy send it as a bare number
    [HexOrDecimal64, BlockTag, optional(FloatArray, NO_PERCENTILES)],
    (b, [countRaw, ref, percentiles]) => {
      for (let i = 0; i < percentiles.length; i++) {
        const p = percentiles[i] as number
        if (p < 0 || p > 100) throw new InvalidParamsError(`invalid reward percentile: ${p}`)
        if (i > 0 && p <= (percentiles[i - 1] as number)) {
          throw new InvalidParamsError(`invalid reward percentile: #${i - 1}:${percentiles[i - 1]} >= #${i}:${p}`)
        }
      }
      let count = Number(countRaw)
      if (count > FEE_HISTORY_MAX_BLOCKS) count = FEE_HISTORY_MAX_BLOCKS
      const newest = resolveBlock(b, ref)
      if (newest === undefined) throw new InvalidParamsError('requested block is in the future')
      if (count === 0) return { oldestBlock: '0x0', baseFeePerGas: [], gasUsedRatio: [] }
      const last = newest.header.number
      const first = last - BigInt(count) + 1n < 0n ? 0n : last - BigInt(count) + 1n
      const baseFees: string[] = []
      const ratios: number[] = []
      const blobFees: string[] = []
      const blobRatios: number[] = []
      const rewards: string[][] = []
      let lastBlock: ChainBlock = newest
      for (let n = first; n <= last; n++) {
        const block = b.blockByNumber(n)
        if (block === undefined) break
        lastBlock = block
        baseFees.push(toQuantity(block.header.baseFeePerGas ?? 0n))
        ratios.push(Number(block.header.gasUsed) / Number(block.header.gasLimit))
        blobFees.push(toQuantity(block.header.common.isActivatedEIP(4844) ? block.header.getBlobGasPrice() : 0n))
        blobRatios.push(blobGasUsedRatio(block))
        if (percentiles.length > 0) rewards.push(rewardsOf(block, percentiles, b).map((r) => toQuantity(r)))
      }
      const h = lastBlock.header
      baseFees.push(toQuantity(h.common.isActivatedEIP(1559) ? h.calcNextBaseFee() : 0n))
      blobFees.push(toQuantity(h.common.isActivatedEIP(4844) ? h.calcNextBlobGasPrice(h.common) : 0n))
      const out: Record<string, unknown> = {
        oldestBlock: toQuantity(first),
        ...(percentiles.length > 0 ? { reward: rewards } : {}),
        baseFeePerGas: baseFees,
        gasUsedRatio: ratios,
        baseFeePerBlobGas: blobFees,
        blobGasUsedRatio: blobRatios,
      }
      return out
    },
  ),
}
