// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";
import {IRevenuePool, IValidatorNFT, Seats} from "./DaoTypes.sol";

/// RevenuePool - the DAO's revenue and its half-yearly distribution (spec: "Rewards are distributed
/// half-yearly in proportion to stake to the wallet holding the validator NFT; the reward balance is
/// tracked in the DAO contract and consulted when claiming. Revenue comes from transaction fees and
/// other ecosystem revenue"; tier shares 50% / 40% / 10%; "transactional revenue starts 12 to 18
/// months after ecosystem launch").
///
/// Two kinds of revenue:
/// - ecosystem revenue arrives with a call: deposit(source) or a plain transfer (e.g. from the
///   Treasury Safe). It is distributed from the first epoch on (`pendingEcosystemRevenue`).
/// - transactional revenue arrives without any call: the chain credits every block's fees (base fee
///   and tip) to this address, and coins forced in by selfdestruct land the same way. It is
///   whatever the balance holds beyond everything accounted for (`heldTransactionalRevenue`), and
///   it is distributed only by an epoch finalized at or after `transactionalRevenueStart()` =
///   launchTime + transactionalRevenueDelay, the delay a governed parameter within 12 to 18
///   months. Until then it stays in this contract, and the first epoch finalized after the start
///   distributes all of it, the fees of the months before included (nothing leaves the pool).
///
/// At the end of an epoch anyone calls finalize(epoch):
///
///   T      = started ? balance - claimable - held - carries - ecosystem : 0
///   R      = ecosystem + T
///   pool_t = floor(R * share_t / 10000) + carry_t          (share 5000 / 4000 / 1000 bps)
///   seat   = floor(pool_t * rewardStake(seat) / sum of the tier's rewardStakes)
///   rewardStake = the seat's lowest stake during the epoch; 0 if seated during it
///   carry_t = pool_t - credited_t                          (dust and empty tiers stay with the tier)
///
/// The rounding remainder of the split stays unallocated and is part of the next R (as ecosystem
/// revenue, already released: it may hold fee revenue of a transactional epoch). Credits go to
/// the seat's holder at finalization (or are held by a dispute remedy); claim() zeroes then pays.
/// A profit share of actual revenue only: no rates, no minting, no guaranteed minimum, nothing
/// accrues or is charged on unclaimed balances. Epoch n+1 starts when epoch n is finalized.
contract RevenuePool is AccessControl, ReentrancyGuardTransient, IRevenuePool {
    struct SeatStake {
        uint112 stake;
        /// Lowest stake seen during epoch `minEpoch`.
        uint112 minStake;
        uint16 minEpoch;
        /// 1 + the epoch in which the current holder was seated; 0 = never seated.
        uint16 seatedEpochPlusOne;
    }

    /// When transactional revenue starts: `launchTime` + `delay`, the delay within [minDelay, maxDelay].
    struct RevenueStart {
        /// Ecosystem launch (unix seconds); 0 = the deployment block's timestamp (the genesis).
        uint64 launchTime;
        /// Seconds after launch (production: 12 months of 30.4375 days); the Timelock may change it.
        uint64 delay;
        /// Bounds the delay always stays in (production: 12 and 18 months).
        uint64 minDelay;
        uint64 maxDelay;
    }

    struct EpochRecord {
        uint64 start;
        uint64 end;
        /// R of the epoch.
        uint256 revenue;
        /// The transactional (fee) part of R: 0 for an epoch finalized before the start.
        uint256 transactionalRevenue;
        /// Per tier (index 0 = Tier I): pool incl. carry, the tier's total reward stake, credited.
        uint256[3] pools;
        uint256[3] tierStake;
        uint256[3] credited;
    }

    error ZeroAddress();
    error NotDao(address caller);
    error InvalidDuration();
    /// A transactional revenue delay outside [min, max].
    error RevenueDelayOutOfRange(uint64 delay, uint64 min, uint64 max);
    /// Transactional revenue started at `startedAt`; its start can no longer move.
    error TransactionalRevenueStarted(uint64 startedAt);
    error EpochAlreadyFinalized(uint256 epoch);
    error EpochNotCurrent(uint256 epoch, uint256 current);
    error EpochNotOver(uint256 epoch, uint64 endsAt);
    error NothingToClaim(address account);
    error PaymentFailed(address to, uint256 amount);

    event RevenueReceived(address indexed from, uint256 amount, bytes32 source);
    event SeatCredited(uint256 indexed epoch, uint256 indexed seat, address indexed holder, uint256 amount, bool held);
    event EpochFinalized(
        uint256 indexed epoch,
        uint64 start,
        uint64 end,
        uint256 revenue,
        uint256 transactionalRevenue,
        uint256[3] pools,
        uint256[3] credited,
        uint256[3] carries
    );
    event Claimed(address indexed account, uint256 amount);
    event StakeNoted(uint256 indexed seat, uint256 stake, bool reseated);
    event RewardHoldChanged(uint256 indexed seat, bool held, uint256 released, address indexed releasedTo);
    event EpochDurationChanged(uint64 oldDuration, uint64 newDuration);
    event TransactionalRevenueDelayChanged(uint64 oldDelay, uint64 newDelay, uint64 startsAt);

    IValidatorNFT public immutable nft;
    address public immutable dao;

    /// Ecosystem launch (unix seconds): transactional revenue starts transactionalRevenueDelay later.
    uint64 public immutable launchTime;
    /// Bounds of transactionalRevenueDelay (production 12 and 18 months: spec "12 to 18 months").
    uint64 public immutable minTransactionalRevenueDelay;
    uint64 public immutable maxTransactionalRevenueDelay;

    /// Seconds an epoch lasts at least (production: 182.625 days, half a year).
    uint64 public epochDuration;
    /// Seconds from launchTime to the start of transactional revenue (governed, within the bounds).
    uint64 public transactionalRevenueDelay;
    uint256 public currentEpoch;
    uint64 public currentEpochStart;

    /// Credited and not yet claimed, over all accounts.
    uint256 public totalClaimable;
    /// Credited to seats under a HOLD_REWARDS remedy.
    uint256 public totalHeld;
    /// Not yet allocated revenue that the next epoch distributes whatever the date: ecosystem
    /// revenue (deposit, plain transfers), forfeited held rewards, the split's rounding remainder.
    uint256 public pendingEcosystemRevenue;
    uint256[4] private _carry;

    mapping(address account => uint256) public claimable;
    mapping(uint256 seat => uint256) public heldRewards;
    mapping(uint256 seat => bool) public rewardHeld;
    /// Everything ever credited to a seat (the per-seat ledger).
    mapping(uint256 seat => uint256) public seatEarned;
    mapping(uint256 seat => SeatStake) private _stakes;
    mapping(uint256 epoch => EpochRecord) private _epochs;

    modifier onlyDao() {
        if (msg.sender != dao) revert NotDao(msg.sender);
        _;
    }

    /// `firstEpochStart` 0 = the deployment block's timestamp.
    constructor(
        address admin,
        IValidatorNFT nft_,
        address dao_,
        uint64 epochDuration_,
        uint64 firstEpochStart,
        RevenueStart memory start
    ) {
        if (admin == address(0) || address(nft_) == address(0) || dao_ == address(0)) revert ZeroAddress();
        if (epochDuration_ == 0) revert InvalidDuration();
        if (start.minDelay > start.maxDelay || start.delay < start.minDelay || start.delay > start.maxDelay) {
            revert RevenueDelayOutOfRange(start.delay, start.minDelay, start.maxDelay);
        }
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        nft = nft_;
        dao = dao_;
        epochDuration = epochDuration_;
        currentEpochStart = firstEpochStart == 0 ? uint64(block.timestamp) : firstEpochStart;
        launchTime = start.launchTime == 0 ? uint64(block.timestamp) : start.launchTime;
        minTransactionalRevenueDelay = start.minDelay;
        maxTransactionalRevenueDelay = start.maxDelay;
        transactionalRevenueDelay = start.delay;
    }

    /// Plain transfers are ecosystem revenue.
    receive() external payable {
        pendingEcosystemRevenue += msg.value;
        emit RevenueReceived(msg.sender, msg.value, bytes32(0));
    }

    /// deposit ecosystem revenue with a label of its source (e.g. keccak256("ecosystem:licensing")).
    function deposit(bytes32 source) external payable {
        pendingEcosystemRevenue += msg.value;
        emit RevenueReceived(msg.sender, msg.value, source);
    }

    // ---------------------------------------------------------------------------------------
    // Epochs

    /// finalize closes `epoch` (which must be the current one and at least epochDuration old),
    /// credits every seat and opens the next epoch. Anyone may call it.
    function finalize(uint256 epoch) external nonReentrant {
        uint256 current = currentEpoch;
        if (epoch < current) revert EpochAlreadyFinalized(epoch);
        if (epoch > current) revert EpochNotCurrent(epoch, current);
        uint64 start = currentEpochStart;
        uint64 endsAt = start + epochDuration;
        if (block.timestamp < endsAt) revert EpochNotOver(epoch, endsAt);

        EpochRecord storage rec = _epochs[epoch];
        uint256 transactional = transactionalRevenueStarted() ? heldTransactionalRevenue() : 0;
        uint256 revenue = pendingEcosystemRevenue + transactional;
        uint256[151] memory rewardStake;
        uint256[3] memory tierStake;
        for (uint256 seat = 1; seat <= Seats.TOTAL_SEATS; ++seat) {
            uint256 rs = _rewardStake(seat, epoch);
            if (rs == 0) continue;
            rewardStake[seat] = rs;
            tierStake[Seats.tierOf(seat) - 1] += rs;
        }
        uint256[3] memory pools = _splitRevenue(revenue);
        uint256[3] memory credited;
        for (uint256 seat = 1; seat <= Seats.TOTAL_SEATS; ++seat) {
            uint256 rs = rewardStake[seat];
            if (rs == 0) continue;
            uint256 t = Seats.tierOf(seat) - 1;
            uint256 amount = (pools[t] * rs) / tierStake[t];
            if (amount == 0) continue;
            credited[t] += amount;
            _credit(epoch, seat, amount);
        }
        uint256[3] memory carries;
        for (uint256 t = 0; t < 3; ++t) {
            carries[t] = pools[t] - credited[t];
            _carry[t + 1] = carries[t];
        }
        rec.start = start;
        rec.end = uint64(block.timestamp);
        rec.revenue = revenue;
        rec.transactionalRevenue = transactional;
        rec.pools = pools;
        rec.tierStake = tierStake;
        rec.credited = credited;
        currentEpoch = current + 1;
        currentEpochStart = uint64(block.timestamp);
        emit EpochFinalized(epoch, start, uint64(block.timestamp), revenue, transactional, pools, credited, carries);
    }

    /// claim pays everything credited to the caller (zeroed first; a second claim reverts).
    function claim() external nonReentrant {
        uint256 amount = claimable[msg.sender];
        if (amount == 0) revert NothingToClaim(msg.sender);
        claimable[msg.sender] = 0;
        totalClaimable -= amount;
        (bool ok,) = msg.sender.call{value: amount}("");
        if (!ok) revert PaymentFailed(msg.sender, amount);
        emit Claimed(msg.sender, amount);
    }

    // ---------------------------------------------------------------------------------------
    // Called by the ValidatorDAO

    /// noteStake mirrors a seat's stake change; `reseated` = a new holder from now (approval or sale).
    function noteStake(uint256 seat, uint256 stake, bool reseated) external onlyDao {
        SeatStake storage s = _stakes[seat];
        uint16 e = SafeCast.toUint16(currentEpoch);
        uint112 newStake = SafeCast.toUint112(stake);
        emit StakeNoted(seat, stake, reseated);
        if (reseated) {
            _stakes[seat] = SeatStake({stake: newStake, minStake: newStake, minEpoch: e, seatedEpochPlusOne: e + 1});
            return;
        }
        if (s.minEpoch != e) {
            s.minStake = s.stake;
            s.minEpoch = e;
        }
        if (newStake < s.minStake) s.minStake = newStake;
        s.stake = newStake;
    }

    /// setRewardHold starts holding the seat's rewards, or ends it: the held amount goes to the
    /// holder's claimable balance (`releaseToHolder`) or back into the pool as revenue.
    function setRewardHold(uint256 seat, bool held, bool releaseToHolder) external onlyDao {
        rewardHeld[seat] = held;
        if (held) {
            emit RewardHoldChanged(seat, true, 0, address(0));
            return;
        }
        uint256 amount = heldRewards[seat];
        heldRewards[seat] = 0;
        totalHeld -= amount;
        address to;
        if (releaseToHolder && amount > 0) {
            to = nft.ownerOf(seat);
            claimable[to] += amount;
            totalClaimable += amount;
        } else {
            pendingEcosystemRevenue += amount; // revenue already released once: back into the next R
        }
        emit RewardHoldChanged(seat, false, amount, to);
    }

    // ---------------------------------------------------------------------------------------
    // Admin (the Timelock)

    /// setEpochDuration applies to the open epoch's end and every later epoch.
    function setEpochDuration(uint64 duration) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (duration == 0) revert InvalidDuration();
        emit EpochDurationChanged(epochDuration, duration);
        epochDuration = duration;
    }

    /// setTransactionalRevenueDelay moves the start of transactional revenue to launchTime + `delay`,
    /// within [minTransactionalRevenueDelay, maxTransactionalRevenueDelay]; only before it started.
    function setTransactionalRevenueDelay(uint64 delay) external onlyRole(DEFAULT_ADMIN_ROLE) {
        uint64 startsAt = transactionalRevenueStart();
        if (block.timestamp >= startsAt) revert TransactionalRevenueStarted(startsAt);
        uint64 min = minTransactionalRevenueDelay;
        uint64 max = maxTransactionalRevenueDelay;
        if (delay < min || delay > max) revert RevenueDelayOutOfRange(delay, min, max);
        emit TransactionalRevenueDelayChanged(transactionalRevenueDelay, delay, launchTime + delay);
        transactionalRevenueDelay = delay;
    }

    // ---------------------------------------------------------------------------------------
    // Views

    /// transactionalRevenueStart: from this timestamp on, a finalized epoch distributes fee revenue.
    function transactionalRevenueStart() public view returns (uint64) {
        return launchTime + transactionalRevenueDelay;
    }

    function transactionalRevenueStarted() public view returns (bool) {
        return block.timestamp >= transactionalRevenueStart();
    }

    /// heldTransactionalRevenue: fee revenue (and forced coins) not yet distributed.
    function heldTransactionalRevenue() public view returns (uint256) {
        return address(this).balance - totalClaimable - totalHeld - _carry[1] - _carry[2] - _carry[3]
            - pendingEcosystemRevenue;
    }

    /// pendingRevenue: R if the epoch were finalized now.
    function pendingRevenue() public view returns (uint256) {
        return pendingEcosystemRevenue + (transactionalRevenueStarted() ? heldTransactionalRevenue() : 0);
    }

    /// carry: what tier `tier` (1..3) carries into the next epoch.
    function carry(uint8 tier) external view returns (uint256) {
        Seats.checkTier(tier);
        return _carry[tier];
    }

    function currentEpochEndsAt() external view returns (uint64) {
        return currentEpochStart + epochDuration;
    }

    function epochInfo(uint256 epoch) external view returns (EpochRecord memory) {
        return _epochs[epoch];
    }

    function seatStake(uint256 seat) external view returns (SeatStake memory) {
        return _stakes[seat];
    }

    /// rewardStakeOf: the stake `seat` would earn on if the current epoch were finalized now.
    function rewardStakeOf(uint256 seat) external view returns (uint256) {
        return _rewardStake(seat, currentEpoch);
    }

    // ---------------------------------------------------------------------------------------
    // Internals

    /// _splitRevenue: the three tier pools of R (share + the tier's carry); the rounding remainder
    /// becomes the next epoch's pending ecosystem revenue.
    function _splitRevenue(uint256 revenue) private returns (uint256[3] memory pools) {
        uint256 split;
        for (uint256 t = 0; t < 3; ++t) {
            uint256 share = (revenue * Seats.revenueShareBps(t + 1)) / Seats.BPS;
            split += share;
            pools[t] = share + _carry[t + 1];
        }
        pendingEcosystemRevenue = revenue - split;
    }

    function _rewardStake(uint256 seat, uint256 epoch) private view returns (uint256) {
        SeatStake memory s = _stakes[seat];
        if (s.seatedEpochPlusOne == 0 || s.seatedEpochPlusOne - 1 == epoch) return 0;
        return s.minEpoch == epoch ? s.minStake : s.stake;
    }

    function _credit(uint256 epoch, uint256 seat, uint256 amount) private {
        address holder = nft.ownerOf(seat);
        seatEarned[seat] += amount;
        bool held = rewardHeld[seat];
        if (held) {
            heldRewards[seat] += amount;
            totalHeld += amount;
        } else {
            claimable[holder] += amount;
            totalClaimable += amount;
        }
        emit SeatCredited(epoch, seat, holder, amount, held);
    }
}
