#!/usr/bin/env node
/**
 * `node scripts/dao-status.js [--rpc URL] [--account ADDRESS] [--from-block N]`: the state of the
 * Validator DAO at its preset addresses, read through DaoLens (one eth_call each) and the DAO's
 * logs: tiers, seats, votes and ranking, proposals, epochs, and an account's claimable rewards.
 */
import { Chain } from './dao/client.js'
import { coins } from './dao/demo.js'
import { genesisSuite } from './dao/deploy.js'

/** LOG_WINDOW_BLOCKS: how far back proposals and epochs are searched by default (below the node's getLogs range limit). */
const LOG_WINDOW_BLOCKS = 90_000n
const STATE = ['Pending', 'Active', 'Canceled', 'Defeated', 'Succeeded', 'Queued', 'Expired', 'Executed']

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name)
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback
}

async function logs(chain, contract, event, fromBlock) {
  const topic = contract.iface.getEvent(event).topicHash
  const found = await chain.rpc('eth_getLogs', [
    { address: contract.address, topics: [topic], fromBlock: `0x${fromBlock.toString(16)}`, toBlock: 'latest' },
  ])
  return found.map((log) => ({ log, args: contract.iface.parseLog(log).args }))
}

async function main() {
  const chain = new Chain(arg('--rpc', 'http://127.0.0.1:8545'))
  const { contracts: c, addresses } = genesisSuite(chain)
  const head = BigInt((await chain.latestBlock()).number)
  const from = BigInt(arg('--from-block', String(head > LOG_WINDOW_BLOCKS ? head - LOG_WINDOW_BLOCKS : 0n)))

  const o = await c.DaoLens.read('overview')
  console.log(`Validator DAO at ${addresses.ValidatorDAO} (chain ${await chain.chainId()}, block ${head})`)
  console.log(
    `  seats ${o.seated}/150, votes ${o.totalVotes}/1000, locked ${coins(o.totalStake)} coins, applications ${o.applications}${o.paused ? ', PAUSED' : ''}`,
  )
  console.log(
    `  epoch ${o.currentEpoch}: since ${new Date(Number(o.epochStart) * 1000).toISOString()}, ends ${new Date(Number(o.epochEndsAt) * 1000).toISOString()}; revenue so far ${coins(o.pendingRevenue)} coins; unclaimed ${coins(o.totalClaimable)}`,
  )
  const start = await c.RevenuePool.read('transactionalRevenueStart')
  const started = await c.RevenuePool.read('transactionalRevenueStarted')
  const held = await c.RevenuePool.read('heldTransactionalRevenue')
  console.log(
    `  transactional (fee) revenue ${started ? 'started' : 'starts'} ${new Date(Number(start) * 1000).toISOString()}; fees not yet distributed ${coins(held)} coins${started ? '' : ' (held until the start)'}`,
  )
  console.log('Tiers')
  for (const t of await c.DaoLens.read('tiers')) {
    console.log(
      `  Tier ${t.tier}: ${t.seated}/${t.capacity} seats, ${t.votesPerSeat} votes each, minimum ${coins(t.minStake)} coins, share ${Number(t.revenueShareBps) / 100}%, carry ${coins(t.carry)}`,
    )
  }
  console.log('Seats (id tier holder votes stake earned)')
  for (const s of await c.DaoLens.read('seats')) {
    const flags = [
      s.suspended ? 'suspended' : '',
      s.remedies ? `remedies ${s.remedies}` : '',
      s.listPrice ? `listed ${coins(s.listPrice)}` : '',
    ]
      .filter(Boolean)
      .join(', ')
    console.log(
      `  ${String(s.seat).padStart(3)} ${s.tier} ${s.holder} ${String(s.votes).padStart(2)} ${coins(s.stake)} ${coins(s.earned)}${flags ? ` (${flags})` : ''}`,
    )
  }
  for (const tier of [1, 2, 3])
    console.log(`  ranking Tier ${tier}: ${(await c.DaoLens.read('ranking', [tier])).join(', ') || '-'}`)
  console.log(`Proposals (from block ${from})`)
  for (const { args } of await logs(chain, c.DaoGovernor, 'ProposalCreated', from)) {
    const p = await c.DaoLens.read('proposal', [args.proposalId])
    console.log(
      `  ${args.proposalId}: "${args.description}" ${STATE[Number(p.state)]}; for ${p.forVotes} against ${p.againstVotes} abstain ${p.abstainVotes}; holdings for ${coins(p.forHoldings)} against ${coins(p.againstHoldings)}`,
    )
  }
  console.log('Finalized epochs')
  for (const { args } of await logs(chain, c.RevenuePool, 'EpochFinalized', from)) {
    console.log(
      `  ${args.epoch}: R ${coins(args.revenue)} (fees ${coins(args.transactionalRevenue)}); pools ${[...args.pools].map(coins).join(' / ')}; credited ${[...args.credited].map(coins).join(' / ')}`,
    )
  }
  const account = arg('--account')
  if (account) {
    const m = await c.DaoLens.read('member', [account])
    console.log(
      `Account ${account}: seats [${m.seats.join(', ')}], votes ${m.votes}, locked ${coins(m.stake)}, KYC ${m.kycValid ? 'valid' : 'none'} (identity ${m.identity}: ${m.identitySeats} seats, ${m.identityPending} pending over all its wallets), claimable ${coins(m.claimable)}, withdrawable ${coins(m.withdrawable)}`,
    )
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err)
  process.exit(1)
})
