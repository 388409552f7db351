// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IGovernor} from "@openzeppelin/contracts/governance/IGovernor.sol";
import {IKycRegistry, IValidatorNFT, KycCategory, Seats} from "./DaoTypes.sol";

interface ILensDao {
    function seatedCount(uint8 tier) external view returns (uint256);
    function minStake(uint8 tier) external view returns (uint256);
    function stakeOf(uint256 seat) external view returns (uint256);
    function remediesOf(uint256 seat) external view returns (uint8);
    function listingOf(uint256 seat) external view returns (uint256 price, uint64 listedAt, uint64 firstRefusalEndsAt);
    function rankedSeats(uint8 tier) external view returns (uint256[] memory);
    function totalStake() external view returns (uint256);
    function stakeOfHolder(address account) external view returns (uint256);
    function applicationCount() external view returns (uint256);
    function pendingApplications(address account) external view returns (uint256);
    function seatsOfIdentity(bytes32 identity) external view returns (uint256);
    function pendingOfIdentity(bytes32 identity) external view returns (uint256);
    function withdrawable(address account) external view returns (uint256);
    function paused() external view returns (bool);
    function disclaimerHash() external view returns (bytes32);
    function riskWarningHash() external view returns (bytes32);
    function informationMemorandumHash() external view returns (bytes32);
}

interface ILensPool {
    function currentEpoch() external view returns (uint256);
    function currentEpochStart() external view returns (uint64);
    function currentEpochEndsAt() external view returns (uint64);
    function pendingRevenue() external view returns (uint256);
    function totalClaimable() external view returns (uint256);
    function claimable(address account) external view returns (uint256);
    function carry(uint8 tier) external view returns (uint256);
    function seatEarned(uint256 seat) external view returns (uint256);
    function rewardStakeOf(uint256 seat) external view returns (uint256);
}

interface ILensGovernor {
    function proposalVotes(uint256 proposalId) external view returns (uint256, uint256, uint256);
    function proposalHoldings(uint256 proposalId) external view returns (uint256, uint256);
}

/// DaoLens - batched read-only views of the whole DAO for explorers, wallets and scripts (one
/// eth_call instead of hundreds). Holds no state besides the addresses it reads.
contract DaoLens {
    struct SeatView {
        uint256 seat;
        uint8 tier;
        address holder;
        /// Votes the seat carries now (0 while suspended).
        uint256 votes;
        uint256 stake;
        uint64 heldSince;
        uint64 unlocksAt;
        bool suspended;
        uint8 remedies;
        uint256 listPrice;
        uint64 firstRefusalEndsAt;
        /// Stake the seat earns on in the open epoch.
        uint256 rewardStake;
        /// Everything ever credited to the seat.
        uint256 earned;
        KycCategory holderCategory;
    }

    struct TierView {
        uint8 tier;
        uint256 seated;
        uint256 capacity;
        uint256 votesPerSeat;
        uint256 minStake;
        uint256 revenueShareBps;
        uint256 carry;
    }

    struct Overview {
        uint256 totalVotes;
        uint256 totalStake;
        uint256 seated;
        uint256 applications;
        uint256 currentEpoch;
        uint64 epochStart;
        uint64 epochEndsAt;
        uint256 pendingRevenue;
        uint256 totalClaimable;
        bool paused;
        bytes32[3] documents;
    }

    struct MemberView {
        uint256[] seats;
        uint256 votes;
        uint256 stake;
        bool kycValid;
        KycCategory category;
        uint256 pendingApplications;
        uint256 withdrawable;
        uint256 claimable;
        /// The KYC identity the account is a wallet of (0: never attested), and what that identity
        /// holds and has pending over all its wallets (the 2-seat cap counts these).
        bytes32 identity;
        uint256 identitySeats;
        uint256 identityPending;
    }

    struct ProposalView {
        IGovernor.ProposalState state;
        address proposer;
        uint256 snapshot;
        uint256 deadline;
        uint256 eta;
        uint256 againstVotes;
        uint256 forVotes;
        uint256 abstainVotes;
        uint256 againstHoldings;
        uint256 forHoldings;
        /// Quorum at the snapshot (0 until the snapshot has passed).
        uint256 quorum;
    }

    IKycRegistry public immutable kyc;
    IValidatorNFT public immutable nft;
    ILensDao public immutable dao;
    IGovernor public immutable governor;
    ILensPool public immutable revenuePool;
    address public immutable disputes;

    constructor(
        IKycRegistry kyc_,
        IValidatorNFT nft_,
        ILensDao dao_,
        IGovernor governor_,
        ILensPool revenuePool_,
        address disputes_
    ) {
        kyc = kyc_;
        nft = nft_;
        dao = dao_;
        governor = governor_;
        revenuePool = revenuePool_;
        disputes = disputes_;
    }

    function overview() external view returns (Overview memory o) {
        o.totalVotes = nft.totalVotes();
        o.totalStake = dao.totalStake();
        o.seated = dao.seatedCount(1) + dao.seatedCount(2) + dao.seatedCount(3);
        o.applications = dao.applicationCount();
        o.currentEpoch = revenuePool.currentEpoch();
        o.epochStart = revenuePool.currentEpochStart();
        o.epochEndsAt = revenuePool.currentEpochEndsAt();
        o.pendingRevenue = revenuePool.pendingRevenue();
        o.totalClaimable = revenuePool.totalClaimable();
        o.paused = dao.paused();
        o.documents = [dao.disclaimerHash(), dao.riskWarningHash(), dao.informationMemorandumHash()];
    }

    function tiers() external view returns (TierView[3] memory t) {
        for (uint8 i = 1; i <= 3; ++i) {
            t[i - 1] = TierView({
                tier: i,
                seated: dao.seatedCount(i),
                capacity: Seats.capacity(i),
                votesPerSeat: Seats.votesPerSeat(i),
                minStake: dao.minStake(i),
                revenueShareBps: Seats.revenueShareBps(i),
                carry: revenuePool.carry(i)
            });
        }
    }

    /// seats: every seated seat, by id.
    function seats() external view returns (SeatView[] memory out) {
        uint256 n = dao.seatedCount(1) + dao.seatedCount(2) + dao.seatedCount(3);
        out = new SeatView[](n);
        uint256 k;
        for (uint8 tier = 1; tier <= 3; ++tier) {
            uint256 first = Seats.firstSeat(tier);
            uint256 count = dao.seatedCount(tier);
            for (uint256 i = 0; i < count; ++i) out[k++] = seat(first + i);
        }
    }

    function seat(uint256 id) public view returns (SeatView memory v) {
        v.seat = id;
        v.tier = Seats.tierOf(id);
        if (!nft.exists(id)) return v;
        v.holder = nft.ownerOf(id);
        v.suspended = nft.isSuspended(id);
        v.votes = v.suspended ? 0 : Seats.votesPerSeat(v.tier);
        v.stake = dao.stakeOf(id);
        v.heldSince = nft.heldSince(id);
        v.unlocksAt = nft.unlocksAt(id);
        v.remedies = dao.remediesOf(id);
        (v.listPrice,, v.firstRefusalEndsAt) = dao.listingOf(id);
        v.rewardStake = revenuePool.rewardStakeOf(id);
        v.earned = revenuePool.seatEarned(id);
        v.holderCategory = kyc.categoryOf(v.holder);
    }

    function ranking(uint8 tier) external view returns (uint256[] memory) {
        return dao.rankedSeats(tier);
    }

    function member(address account) external view returns (MemberView memory m) {
        m.seats = nft.seatsOf(account);
        m.votes = nft.getVotes(account);
        m.stake = dao.stakeOfHolder(account);
        m.kycValid = kyc.isValid(account);
        m.category = kyc.categoryOf(account);
        m.pendingApplications = dao.pendingApplications(account);
        m.withdrawable = dao.withdrawable(account);
        m.claimable = revenuePool.claimable(account);
        m.identity = kyc.identityOf(account);
        if (m.identity != bytes32(0)) {
            m.identitySeats = dao.seatsOfIdentity(m.identity);
            m.identityPending = dao.pendingOfIdentity(m.identity);
        }
    }

    function proposal(uint256 proposalId) external view returns (ProposalView memory p) {
        p.state = governor.state(proposalId); // reverts for an unknown proposal
        p.proposer = governor.proposalProposer(proposalId);
        p.snapshot = governor.proposalSnapshot(proposalId);
        p.deadline = governor.proposalDeadline(proposalId);
        p.eta = governor.proposalEta(proposalId);
        (p.againstVotes, p.forVotes, p.abstainVotes) = ILensGovernor(address(governor)).proposalVotes(proposalId);
        (p.againstHoldings, p.forHoldings) = ILensGovernor(address(governor)).proposalHoldings(proposalId);
        if (p.snapshot < governor.clock()) p.quorum = governor.quorum(p.snapshot);
    }
}
