/**
 * The Validator DAO end to end on a fresh `ibex start --network dev` chain, with the genesis DAO
 * at its fixed addresses and the test-mnemonic keys only:
 *
 *   dev 1 attests KYC · applicants 10-19 (30 M coins each on dev) apply for seats in every tier at
 *   the production minimums · dev 2 (Ops) approves · the limits revert with their reasons · a tied
 *   proposal is decided by holdings and executed through the Timelock, its mirror image defeated ·
 *   revenue is deposited, two epochs finalized, rewards claimed (50/40/10 checked to the wei) ·
 *   after the lock, a listed seat is refused to a newcomer during the first-refusal window and
 *   bought by an existing validator.
 *
 * runDemo returns what happened (for the e2e test); `node scripts/dao-demo.js` prints it.
 */
import { keccak256, toUtf8Bytes } from 'ethers'

import { decodeRevert } from './client.js'
import { genesisSuite } from './deploy.js'
import { devWallet, networkPlan } from './plan.js'

const COIN = 10n ** 18n
const SHARE_BPS = [5000n, 4000n, 1000n]
const FIXED_GAS = 2_000_000n
const VOTE = { Against: 0, For: 1, Abstain: 2 }
const STATE = ['Pending', 'Active', 'Canceled', 'Defeated', 'Succeeded', 'Queued', 'Expired', 'Executed']

const coins = (wei) => {
  const whole = wei / COIN
  const frac = (wei % COIN).toString().padStart(18, '0').replace(/0+$/, '')
  return `${whole.toLocaleString('en-US')}${frac ? `.${frac}` : ''}`
}

/** runDemo({ chain, log }) plays the scenario on the genesis DAO and returns its results. */
export async function runDemo({ chain, log = () => {} }) {
  const { contracts: c, addresses } = genesisSuite(chain)
  const dev = (i) => chain.signer(devWallet(i).privateKey)
  const kyc = dev(1)
  const ops = dev(2)
  const clock = dev(9)
  const ap = Object.fromEntries([10, 11, 12, 13, 14, 15, 16, 17, 18, 19].map((i) => [i, dev(i)]))
  const { params } = networkPlan('dev')
  const result = { seats: {}, reverts: {}, proposals: {}, epochs: [], claims: {}, resale: {} }

  if ((await c.ValidatorDAO.read('applicationCount')) !== 0n) {
    throw new Error('the genesis DAO has been used on this chain already: run the demo on a fresh dev datadir')
  }

  const tx = async (signer, name, fn, args = [], value = 0n) => c[name].write(signer, fn, args, { value })
  const send = async (signer, name, fn, args = [], value = 0n) => {
    const receipt = await chain.receipt(await c[name].send(signer, fn, args, { value, gas: FIXED_GAS }))
    if (receipt.status !== '0x1') throw new Error(`${name}.${fn} failed on chain`)
    return receipt
  }
  /** proveRevert sends the transaction for real (it fails on chain) and decodes the reason at its block. */
  const proveRevert = async (label, signer, name, fn, args, value = 0n) => {
    const hash = await c[name].send(signer, fn, args, { value, gas: FIXED_GAS })
    const receipt = await chain.receipt(hash)
    const reason = await c[name].revertOf(signer, fn, args, { value, block: receipt.blockNumber })
    result.reverts[label] = { status: receipt.status, ...reason }
    log(`  ${label}: reverted on chain (status ${receipt.status}) with ${reason?.name}(${reason?.args.join(', ')})`)
    return reason
  }
  const blockTime = async (receipt) =>
    Number(BigInt((await chain.rpc('eth_getBlockByNumber', [receipt.blockNumber, false])).timestamp))

  log(`DAO at ${addresses.ValidatorDAO}, RevenuePool ${addresses.RevenuePool}, Governor ${addresses.DaoGovernor}`)

  // 1. KYC, documents, applications in every tier at the production minimums, approvals
  log('1. KYC by dev 1, applications, approvals by dev 2 (Ops)')
  const now = Math.max(await chain.timestamp(), Math.floor(Date.now() / 1000)) // block 0 of dev is at 0
  await tx(kyc, 'KycRegistry', 'attestBatch', [
    Object.values(ap).map((s) => s.address),
    // each applicant is a person of its own: its own salted identity commitment (here from its address)
    Object.values(ap).map((s) => keccak256(toUtf8Bytes(`dev KYC identity ${s.address.toLowerCase()}`))),
    1,
    now + 365 * 86_400,
    keccak256(toUtf8Bytes('dev KYC evidence bundle')),
  ])
  const docs = [
    await c.ValidatorDAO.read('disclaimerHash'),
    await c.ValidatorDAO.read('riskWarningHash'),
    await c.ValidatorDAO.read('informationMemorandumHash'),
  ]
  const min = params.minStake.map(BigInt)
  const plan = [
    [10, 1],
    [10, 1],
    [11, 1],
    [11, 1],
    [12, 1],
    [12, 1],
    [13, 1],
    [13, 1],
    [14, 1],
    [14, 1],
    [15, 2],
    [15, 3],
    [16, 2],
    [17, 3],
  ]
  for (const [i, tier] of plan) {
    const applicant = ap[i]
    const r = await tx(
      applicant,
      'ValidatorDAO',
      'applyForSeat',
      [tier, ...docs, keccak256(toUtf8Bytes(`form ${i}`))],
      min[tier - 1],
    )
    const id = c.ValidatorDAO.events(r).find((e) => e.name === 'ApplicationSubmitted').args.id
    const a = await tx(ops, 'ValidatorDAO', 'approveApplication', [id])
    const seat = c.ValidatorDAO.events(a).find((e) => e.name === 'ApplicationApproved').args.seat
    result.seats[seat] = applicant.address
    log(`  seat ${seat} (Tier ${tier}) -> account ${i} ${applicant.address}, stake ${coins(min[tier - 1])}`)
  }
  result.totalVotes = await c.ValidatorNFT.read('totalVotes')
  log(`  total votes now ${result.totalVotes} (10 x 50 + 2 x 10 + 2 x 1)`)

  // 2. the limits
  log('2. limits')
  await proveRevert('11th Tier I seat', ap[18], 'ValidatorDAO', 'applyForSeat', [1, ...docs, keccak256('0x18')], min[0])
  await proveRevert(
    'third seat for one holder',
    ap[10],
    'ValidatorDAO',
    'applyForSeat',
    [3, ...docs, keccak256('0x10')],
    min[2],
  )
  result.reverts['seat 151'] = await c.ValidatorNFT.revertOf(ap[18], 'tierOf', [151])
  log(`  seat 151: tierOf(151) reverts ${result.reverts['seat 151'].name}(151); minting is DAO-only`)
  const seat16 = 12n // account 16's Tier II seat
  await proveRevert('listing before the lock', ap[16], 'ValidatorDAO', 'list', [seat16, 1000n * COIN])
  await proveRevert('transfer before the lock', ap[16], 'ValidatorNFT', 'transferFrom', [
    ap[16].address,
    ap[17].address,
    seat16,
  ])

  // 3. governance: a tie decided by holdings, executed through the Timelock
  log('3. governance')
  await tx(ap[10], 'ValidatorDAO', 'topUp', [1n], 1_000_000n * COIN) // account 10 now holds more than account 11
  await chain.warpTo(clock, (await chain.timestamp()) + 1)
  const gov = c.DaoGovernor
  const newDocs = ['disclaimer v1', 'risk warning v1', 'information memorandum v1'].map((d) =>
    keccak256(toUtf8Bytes(d)),
  )
  const proposal = async (description, target, data) => {
    const r = await tx(ap[10], 'DaoGovernor', 'propose', [[target], [0], [data], description])
    return { id: gov.events(r).find((e) => e.name === 'ProposalCreated').args.proposalId, target, data, description }
  }
  const p1 = await proposal(
    'Publish the v1 documents',
    addresses.ValidatorDAO,
    c.ValidatorDAO.encode('setDocuments', newDocs),
  )
  const p2 = await proposal(
    'Set the epoch to 90 s',
    addresses.RevenuePool,
    c.RevenuePool.encode('setEpochDuration', [90]),
  )
  const snapshot = Number(await gov.read('proposalSnapshot', [p2.id])) // the later of the two
  await chain.warpTo(clock, snapshot + 1)
  const votes = [
    [10, p1, VOTE.For],
    [11, p1, VOTE.Against],
    [11, p2, VOTE.For],
    [10, p2, VOTE.Against],
    ...[12, 13, 14].flatMap((i) => [
      [i, p1, VOTE.Abstain],
      [i, p2, VOTE.Abstain],
    ]),
  ]
  const hashes = await chain.sendBatch(
    votes.map(([i, p, support]) => ({
      signer: ap[i],
      to: gov.address,
      data: gov.encode('castVote', [p.id, support]),
      gas: 500_000n,
    })),
  )
  for (const h of hashes) if ((await chain.receipt(h)).status !== '0x1') throw new Error('a vote failed')
  await chain.warpTo(clock, Number(await gov.read('proposalDeadline', [p2.id])) + 1)
  for (const [key, p] of [
    ['tieForWins', p1],
    ['tieAgainstWins', p2],
  ]) {
    const [against, forVotes, abstain] = await gov.read('proposalVotes', [p.id])
    const [ha, hf] = await gov.read('proposalHoldings', [p.id])
    const state = STATE[Number(await gov.read('state', [p.id]))]
    result.proposals[key] = { against, for: forVotes, abstain, againstHoldings: ha, forHoldings: hf, state }
    log(
      `  "${p.description}": for ${forVotes} / against ${against} / abstain ${abstain}; holdings for ${coins(hf)} vs against ${coins(ha)} -> ${state}`,
    )
  }
  const descHash = keccak256(toUtf8Bytes(p1.description))
  await tx(ap[12], 'DaoGovernor', 'queue', [[p1.target], [0], [p1.data], descHash])
  await chain.warpTo(clock, Number(await gov.read('proposalEta', [p1.id])))
  await tx(ap[13], 'DaoGovernor', 'execute', [[p1.target], [0], [p1.data], descHash])
  result.proposals.tieForWins.state = STATE[Number(await gov.read('state', [p1.id]))]
  result.documentsAfter = await c.ValidatorDAO.read('disclaimerHash')
  log(`  executed through the Timelock: disclaimer hash now ${result.documentsAfter}`)

  // 4. revenue: epoch 0 (everyone seated during it) and epoch 1 (1,000,000 coins deposited)
  log('4. revenue')
  const pool = c.RevenuePool
  const finalize = async (epoch) => {
    await chain.warpTo(clock, Number(await pool.read('currentEpochEndsAt')))
    const carries = [await pool.read('carry', [1]), await pool.read('carry', [2]), await pool.read('carry', [3])]
    const rewardStakes = new Map()
    for (const seat of Object.keys(result.seats))
      rewardStakes.set(BigInt(seat), await pool.read('rewardStakeOf', [seat]))
    const r = await tx(clock, 'RevenuePool', 'finalize', [epoch])
    const events = pool.events(r)
    const fin = events.find((e) => e.name === 'EpochFinalized').args
    const credits = events
      .filter((e) => e.name === 'SeatCredited')
      .map((e) => ({ seat: e.args.seat, holder: e.args.holder, amount: e.args.amount }))
    const record = {
      epoch,
      revenue: fin.revenue,
      pools: [...fin.pools],
      carriesBefore: carries,
      carries: [...fin.carries],
      rewardStakes,
      credits,
    }
    result.epochs.push(record)
    log(
      `  epoch ${epoch}: R = ${coins(fin.revenue)} coins; pools ${[...fin.pools].map(coins).join(' / ')}; ${credits.length} seats credited`,
    )
    return record
  }
  await finalize(0)
  await tx(ap[19], 'RevenuePool', 'deposit', [keccak256(toUtf8Bytes('ecosystem revenue'))], 1_000_000n * COIN)
  const e1 = await finalize(1)
  for (let t = 0; t < 3; t++) {
    const expected = (e1.revenue * SHARE_BPS[t]) / 10_000n + e1.carriesBefore[t]
    if (expected !== e1.pools[t]) throw new Error(`tier ${t + 1} pool ${e1.pools[t]} != ${expected}`)
  }
  for (const i of [10, 15]) {
    const before = await chain.balance(ap[i].address)
    const owed = await pool.read('claimable', [ap[i].address])
    const r = await tx(ap[i], 'RevenuePool', 'claim')
    const paid = (await chain.balance(ap[i].address)) - before + BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice)
    result.claims[i] = { owed, paid }
    log(`  account ${i} claimed ${coins(paid)} coins`)
  }

  // 5. resale after the lock: first refusal for validators
  log('5. resale')
  await chain.warpTo(clock, Number(await c.ValidatorNFT.read('unlocksAt', [seat16])))
  const price = 1000n * COIN
  const listed = await send(ap[16], 'ValidatorDAO', 'list', [seat16, price])
  const listedAt = await blockTime(listed)
  log(
    `  account 16 lists seat ${seat16} for ${coins(price)} coins; first refusal until ${listedAt + params.firstRefusalWindow}`,
  )
  await proveRevert(
    'non-validator purchase during first refusal',
    ap[18],
    'ValidatorDAO',
    'buy',
    [seat16, price],
    price + min[1],
  )
  const votesBefore = [
    await c.ValidatorNFT.read('getVotes', [ap[16].address]),
    await c.ValidatorNFT.read('getVotes', [ap[17].address]),
  ]
  const bought = await send(ap[17], 'ValidatorDAO', 'buy', [seat16, price], price + min[1])
  const sold = c.ValidatorDAO.events(bought).find((e) => e.name === 'SeatSold').args
  result.resale = {
    seat: seat16,
    buyer: sold.buyer,
    firstRefusal: sold.firstRefusal,
    votesBefore,
    votesAfter: [
      await c.ValidatorNFT.read('getVotes', [ap[16].address]),
      await c.ValidatorNFT.read('getVotes', [ap[17].address]),
    ],
  }
  log(
    `  account 17 (a validator) bought it during the window: votes 16 ${votesBefore[0]} -> ${result.resale.votesAfter[0]}, 17 ${votesBefore[1]} -> ${result.resale.votesAfter[1]}`,
  )
  return result
}

export { coins, decodeRevert }
