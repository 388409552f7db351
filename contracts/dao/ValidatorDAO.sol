// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {Checkpoints} from "@openzeppelin/contracts/utils/structs/Checkpoints.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";
import {IKycRegistry, IRevenuePool, IValidatorDAO, IValidatorNFT, KycCategory, Remedies, Seats} from "./DaoTypes.sol";

/// ValidatorDAO - applications, locked stake and resale of the 150 validator seats (spec "Validator
/// DAO": "a validator locks the network coin in the DAO"; "Validators must pass KYC and agree to four
/// application documents"; "A validator's tier is fixed at application and never changes"; "resale
/// first offered to existing validators; a non-validator buyer needs KYC approval before transfer").
///
///   applyForSeat (KYC valid, the 3 current document hashes + own form hash, deposit >= tier minimum,
///   escrowed) --approveApplication (MEMBERSHIP_ROLE: Ops Safe)--> seat = lowest free id of the tier, tier fixed
///              --rejectApplication / withdrawApplication--> full refund (pull: withdraw())
///
///   list (after the NFT lock) --first-refusal window: existing validators only--> buy
///                             --after the window: any KYC-valid buyer at >= listed price--> buy
///   buy settles atomically: seller gets price + old stake (pull), the buyer's new stake is locked,
///   the seat moves with its votes, the stake history of both holders is checkpointed.
///   moveSeat (holder, any time): the seat, its stake and votes go to another KYC-valid wallet of
///   the same KYC identity; not a sale, so the lock keeps running from when the identity got it.
///
/// A validator is a KYC identity (KycRegistry.identityOf: the attestor's salted commitment), not an
/// address: the 2-seat cap (seats held + pending applications), the first-refusal right (an
/// identity holding a seat) and the lock are counted per identity over all its wallets. Each seat
/// remembers the identity that holds it (`identityOfSeat`), so the counts never depend on a later
/// attestation.
///
/// Stake changes (topUp, reduceStake after the lock) never change tier or votes. Holder stake is
/// checkpointed on the same clock as votes (timestamp) for the Governor's tie-break by holdings.
/// Remedies of a dispute (DISPUTE_ROLE) freeze a seat, suspend its votes, hold its rewards or
/// cancel its listing; nothing here lets any role move someone's locked coins. Pause stops new
/// business, never refunds or withdrawals.
contract ValidatorDAO is AccessControl, Pausable, ReentrancyGuardTransient, IValidatorDAO {
    using Checkpoints for Checkpoints.Trace208;

    /// Approves and rejects applications (the Ops Safe).
    bytes32 public constant MEMBERSHIP_ROLE = keccak256("MEMBERSHIP_ROLE");
    /// Pauses new business (the Ops Safe).
    bytes32 public constant PAUSER_ROLE = keccak256("PAUSER_ROLE");
    /// Applies dispute remedies (the DisputeResolution contract).
    bytes32 public constant DISPUTE_ROLE = keccak256("DISPUTE_ROLE");
    /// MAX_SEATS_PER_IDENTITY: spec "NFTs per validator: at most 2 validator NFTs held at one time",
    /// a validator being one KYC identity whatever number of wallets it uses.
    uint256 public constant MAX_SEATS_PER_IDENTITY = 2;

    enum ApplicationStatus {
        None,
        Pending,
        Approved,
        Rejected,
        Withdrawn
    }

    struct Application {
        address applicant;
        uint8 tier;
        ApplicationStatus status;
        uint64 submittedAt;
        uint16 seat;
        uint128 deposit;
        bytes32 formHash;
        /// The applicant's KYC identity when it applied (an account's identity never changes).
        bytes32 identity;
    }

    struct Seat {
        uint128 stake;
        /// When the current holder was seated (approval or purchase); ranks ties.
        uint64 seatedAt;
        uint8 remedies;
    }

    struct Listing {
        uint128 price;
        /// 0 = not listed.
        uint64 listedAt;
    }

    struct Config {
        address admin;
        IKycRegistry kyc;
        IValidatorNFT nft;
        IRevenuePool revenuePool;
        address disputeResolution;
        /// Seconds after listing during which only existing validators may buy (production 30 days).
        uint64 firstRefusalWindow;
        /// Minimum deposit per tier in wei (production 14,285,714 / 2,500,000 / 222,222 coins).
        uint256[3] minStake;
        /// Disclaimer, risk warning, information memorandum (keccak256 of each document).
        bytes32[3] documents;
        address[] membership;
        address[] pausers;
    }

    error ZeroAddress();
    error KycNotValid(address account);
    /// The acknowledged document hashes are not the current ones.
    error StaleDocuments();
    error MissingApplicationForm();
    error DepositBelowMinimum(uint8 tier, uint256 deposit, uint256 minimum);
    /// The KYC identity of `account` holds or has applied for MAX_SEATS_PER_IDENTITY seats over all
    /// its wallets already.
    error SeatLimitReached(address account, bytes32 identity);
    /// A seat moves between one identity's wallets with moveSeat, never by a sale to itself.
    error SameIdentity(uint256 seat, bytes32 identity);
    /// moveSeat only moves a seat to a wallet of the identity that holds it.
    error NotSameIdentity(uint256 seat, address to, bytes32 seatIdentity, bytes32 toIdentity);
    /// A listed seat is not moved (cancel the listing first).
    error SeatIsListed(uint256 seat);
    /// moveSeat to the wallet that already holds the seat.
    error MoveToSameWallet(uint256 seat, address wallet);
    error TierFull(uint8 tier);
    error ApplicationNotPending(uint256 id);
    error NotApplicant(uint256 id, address caller);
    error NotSeatHolder(uint256 seat, address caller);
    error SeatLocked(uint256 seat, uint64 unlocksAt);
    /// A seat under a dispute remedy is not listed, sold or reduced (the remedy stays with its holder).
    error SeatUnderRemedy(uint256 seat, uint8 remedies);
    error AlreadyListed(uint256 seat);
    error NotListed(uint256 seat);
    error InvalidPrice();
    error PriceBelowListing(uint256 seat, uint256 offered, uint256 listed);
    /// During the first-refusal window only existing validators (holding one seat) may buy.
    error FirstRefusalWindow(uint256 seat, uint64 endsAt);
    error CannotBuyOwnSeat(uint256 seat);
    error StakeBelowMinimum(uint256 seat, uint256 remaining, uint256 minimum);
    error ZeroAmount();
    error NothingToWithdraw(address account);
    error PaymentFailed(address to, uint256 amount);
    error FutureLookup(uint256 timepoint, uint256 clock);

    event DocumentsUpdated(bytes32 disclaimer, bytes32 riskWarning, bytes32 informationMemorandum);
    event ApplicationSubmitted(
        uint256 indexed id,
        address indexed applicant,
        uint8 tier,
        uint256 deposit,
        bytes32 disclaimer,
        bytes32 riskWarning,
        bytes32 informationMemorandum,
        bytes32 applicationForm
    );
    event ApplicationApproved(
        uint256 indexed id, address indexed applicant, uint256 indexed seat, uint8 tier, uint256 stake
    );
    event ApplicationRejected(uint256 indexed id, address indexed applicant, uint256 refund, bytes32 reasonHash);
    event ApplicationWithdrawn(uint256 indexed id, address indexed applicant, uint256 refund);
    event StakeChanged(uint256 indexed seat, address indexed holder, uint256 oldStake, uint256 newStake);
    event SeatListed(uint256 indexed seat, address indexed seller, uint256 price, uint64 firstRefusalEndsAt);
    event ListingCancelled(uint256 indexed seat, address indexed by);
    event SeatSold(
        uint256 indexed seat,
        address indexed seller,
        address indexed buyer,
        uint256 price,
        uint256 newStake,
        bool firstRefusal
    );
    event SeatMoved(uint256 indexed seat, address indexed from, address indexed to, bytes32 identity, uint64 unlocksAt);
    event RemediesChanged(uint256 indexed seat, uint8 oldRemedies, uint8 newRemedies);
    event Withdrawn(address indexed account, uint256 amount);

    IKycRegistry public immutable kyc;
    IValidatorNFT public immutable nft;
    IRevenuePool public immutable revenuePool;
    uint64 public immutable firstRefusalWindow;
    uint256 private immutable _minStakeI;
    uint256 private immutable _minStakeII;
    uint256 private immutable _minStakeIII;

    bytes32 public disclaimerHash;
    bytes32 public riskWarningHash;
    bytes32 public informationMemorandumHash;

    uint256 public applicationCount;
    mapping(uint256 id => Application) private _applications;
    mapping(address account => uint256) public pendingApplications;
    /// Seats held, and applications pending, per KYC identity (over all its wallets).
    mapping(bytes32 identity => uint256) public seatsOfIdentity;
    mapping(bytes32 identity => uint256) public pendingOfIdentity;
    /// The KYC identity holding each seat (set when seated, bought; a move keeps it).
    mapping(uint256 seat => bytes32) public identityOfSeat;

    mapping(uint256 seat => Seat) private _seats;
    /// Seats minted per tier (index 1..3); the next free id of a tier is firstSeat + seated.
    uint256[4] private _seated;
    mapping(uint256 seat => Listing) private _listings;

    mapping(address holder => Checkpoints.Trace208) private _holderStake;
    Checkpoints.Trace208 private _totalStake;

    /// Refunds and sale proceeds waiting for withdraw() (pull payments).
    mapping(address account => uint256) public withdrawable;

    constructor(Config memory c) {
        if (
            c.admin == address(0) || address(c.kyc) == address(0) || address(c.nft) == address(0)
                || address(c.revenuePool) == address(0)
        ) revert ZeroAddress();
        kyc = c.kyc;
        nft = c.nft;
        revenuePool = c.revenuePool;
        firstRefusalWindow = c.firstRefusalWindow;
        _minStakeI = c.minStake[0];
        _minStakeII = c.minStake[1];
        _minStakeIII = c.minStake[2];
        _setDocuments(c.documents[0], c.documents[1], c.documents[2]);
        _grantRole(DEFAULT_ADMIN_ROLE, c.admin);
        if (c.disputeResolution != address(0)) _grantRole(DISPUTE_ROLE, c.disputeResolution);
        for (uint256 i = 0; i < c.membership.length; ++i) _grantRole(MEMBERSHIP_ROLE, c.membership[i]);
        for (uint256 i = 0; i < c.pausers.length; ++i) _grantRole(PAUSER_ROLE, c.pausers[i]);
    }

    // ---------------------------------------------------------------------------------------
    // Applications

    /// applyForSeat: apply for a seat of `tier` (1..3) with the deposit as msg.value. The caller
    /// acknowledges the current disclaimer, risk warning and information memorandum by their hashes
    /// and commits to its signed application form by `applicationForm` (hash of the document).
    function applyForSeat(
        uint8 tier,
        bytes32 disclaimer,
        bytes32 riskWarning,
        bytes32 informationMemorandum,
        bytes32 applicationForm
    ) external payable whenNotPaused returns (uint256 id) {
        uint256 minimum = minStake(tier);
        if (!kyc.isValid(msg.sender)) revert KycNotValid(msg.sender);
        if (
            disclaimer != disclaimerHash || riskWarning != riskWarningHash
                || informationMemorandum != informationMemorandumHash
        ) revert StaleDocuments();
        if (applicationForm == bytes32(0)) revert MissingApplicationForm();
        if (msg.value < minimum) revert DepositBelowMinimum(tier, msg.value, minimum);
        bytes32 identity = kyc.identityOf(msg.sender);
        _checkSeatLimit(msg.sender, identity);
        if (_seated[tier] >= Seats.capacity(tier)) revert TierFull(tier);

        id = ++applicationCount;
        _applications[id] = Application({
            applicant: msg.sender,
            tier: tier,
            status: ApplicationStatus.Pending,
            submittedAt: uint64(block.timestamp),
            seat: 0,
            deposit: SafeCast.toUint128(msg.value),
            formHash: applicationForm,
            identity: identity
        });
        ++pendingApplications[msg.sender];
        ++pendingOfIdentity[identity];
        emit ApplicationSubmitted(
            id, msg.sender, tier, msg.value, disclaimer, riskWarning, informationMemorandum, applicationForm
        );
    }

    /// approveApplication seats the applicant in the lowest free seat of the tier applied for; the deposit
    /// becomes the seat's locked stake. The tier is fixed from here on.
    function approveApplication(uint256 id) external onlyRole(MEMBERSHIP_ROLE) whenNotPaused returns (uint256 seat) {
        Application storage a = _pending(id);
        address applicant = a.applicant;
        uint8 tier = a.tier;
        if (!kyc.isValid(applicant)) revert KycNotValid(applicant);
        if (_seated[tier] >= Seats.capacity(tier)) revert TierFull(tier);
        seat = Seats.firstSeat(tier) + _seated[tier];
        ++_seated[tier];
        --pendingApplications[applicant];
        bytes32 identity = a.identity;
        --pendingOfIdentity[identity];
        ++seatsOfIdentity[identity];
        identityOfSeat[seat] = identity;
        a.status = ApplicationStatus.Approved;
        a.seat = uint16(seat);
        uint128 stake = a.deposit;

        nft.mint(applicant, seat); // reverts SeatLimitReached for a third seat
        _seats[seat] = Seat({stake: stake, seatedAt: uint64(block.timestamp), remedies: 0});
        _pushStake(_holderStake[applicant], _add, stake);
        _pushStake(_totalStake, _add, stake);
        revenuePool.noteStake(seat, stake, true);
        emit ApplicationApproved(id, applicant, seat, tier, stake);
        emit StakeChanged(seat, applicant, 0, stake);
    }

    /// rejectApplication refunds the deposit in full (to withdraw()).
    function rejectApplication(uint256 id, bytes32 reasonHash) external onlyRole(MEMBERSHIP_ROLE) {
        Application storage a = _pending(id);
        a.status = ApplicationStatus.Rejected;
        --pendingApplications[a.applicant];
        --pendingOfIdentity[a.identity];
        withdrawable[a.applicant] += a.deposit;
        emit ApplicationRejected(id, a.applicant, a.deposit, reasonHash);
    }

    /// withdrawApplication: the applicant takes a pending application back, with a full refund.
    function withdrawApplication(uint256 id) external {
        Application storage a = _pending(id);
        if (a.applicant != msg.sender) revert NotApplicant(id, msg.sender);
        a.status = ApplicationStatus.Withdrawn;
        --pendingApplications[msg.sender];
        --pendingOfIdentity[a.identity];
        withdrawable[msg.sender] += a.deposit;
        emit ApplicationWithdrawn(id, msg.sender, a.deposit);
    }

    // ---------------------------------------------------------------------------------------
    // Stake

    /// topUp adds msg.value to the seat's locked stake. Tier and votes do not change; revenue
    /// counts the epoch's minimum stake, so a top-up earns from the next epoch on.
    function topUp(uint256 seat) external payable whenNotPaused {
        if (msg.value == 0) revert ZeroAmount();
        address holder = _holderOf(seat);
        Seat storage s = _seats[seat];
        uint128 oldStake = s.stake;
        uint128 newStake = oldStake + SafeCast.toUint128(msg.value);
        s.stake = newStake;
        _pushStake(_holderStake[holder], _add, msg.value);
        _pushStake(_totalStake, _add, msg.value);
        revenuePool.noteStake(seat, newStake, false);
        emit StakeChanged(seat, holder, oldStake, newStake);
    }

    /// reduceStake: after the seat's lock, the holder may take stake above the tier minimum back.
    function reduceStake(uint256 seat, uint256 amount) external whenNotPaused {
        if (amount == 0) revert ZeroAmount();
        address holder = _holderOf(seat);
        Seat storage s = _seats[seat];
        if (s.remedies != 0) revert SeatUnderRemedy(seat, s.remedies);
        uint64 unlocks = nft.unlocksAt(seat);
        if (block.timestamp < unlocks) revert SeatLocked(seat, unlocks);
        uint128 oldStake = s.stake;
        uint256 minimum = minStake(Seats.tierOf(seat));
        if (amount > oldStake || oldStake - amount < minimum) {
            revert StakeBelowMinimum(seat, amount > oldStake ? 0 : oldStake - amount, minimum);
        }
        uint128 newStake = oldStake - uint128(amount);
        s.stake = newStake;
        _pushStake(_holderStake[holder], _sub, amount);
        _pushStake(_totalStake, _sub, amount);
        withdrawable[holder] += amount;
        revenuePool.noteStake(seat, newStake, false);
        emit StakeChanged(seat, holder, oldStake, newStake);
    }

    // ---------------------------------------------------------------------------------------
    // Resale

    /// list offers the seat for sale at `price` (wei). Possible once the seat's lock has passed.
    function list(uint256 seat, uint256 price) external whenNotPaused {
        _holderOf(seat);
        uint8 remedies = _seats[seat].remedies;
        if (remedies != 0) revert SeatUnderRemedy(seat, remedies);
        if (_listings[seat].listedAt != 0) revert AlreadyListed(seat);
        if (price == 0) revert InvalidPrice();
        uint64 unlocks = nft.unlocksAt(seat);
        if (block.timestamp < unlocks) revert SeatLocked(seat, unlocks);
        _listings[seat] = Listing({price: SafeCast.toUint128(price), listedAt: uint64(block.timestamp)});
        emit SeatListed(seat, msg.sender, price, uint64(block.timestamp) + firstRefusalWindow);
    }

    function cancelListing(uint256 seat) external {
        _holderOf(seat);
        if (_listings[seat].listedAt == 0) revert NotListed(seat);
        delete _listings[seat];
        emit ListingCancelled(seat, msg.sender);
    }

    /// buy a listed seat: msg.value = `price` (>= the listed price) + the buyer's new stake
    /// (>= the tier minimum). During the first-refusal window only a validator (a KYC identity
    /// holding one seat, through any of its wallets) may buy; after it any KYC-valid account whose
    /// identity is below the 2-seat limit. The seller's own identity cannot buy (moveSeat).
    function buy(uint256 seat, uint256 price) external payable whenNotPaused nonReentrant {
        Listing memory l = _listings[seat];
        if (l.listedAt == 0) revert NotListed(seat);
        if (price < l.price) revert PriceBelowListing(seat, price, l.price);
        address seller = nft.ownerOf(seat);
        if (seller == msg.sender) revert CannotBuyOwnSeat(seat);
        Seat storage s = _seats[seat];
        if (s.remedies != 0) revert SeatUnderRemedy(seat, s.remedies);
        if (!kyc.isValid(msg.sender)) revert KycNotValid(msg.sender);
        bytes32 buyerIdentity = kyc.identityOf(msg.sender);
        bytes32 sellerIdentity = identityOfSeat[seat];
        if (buyerIdentity == sellerIdentity) revert SameIdentity(seat, buyerIdentity);
        uint64 rofrEnds = l.listedAt + firstRefusalWindow;
        bool firstRefusal = block.timestamp < rofrEnds;
        if (firstRefusal && seatsOfIdentity[buyerIdentity] == 0) revert FirstRefusalWindow(seat, rofrEnds);
        _checkSeatLimit(msg.sender, buyerIdentity);
        uint8 tier = Seats.tierOf(seat);
        uint256 newStake = msg.value >= price ? msg.value - price : 0;
        if (newStake < minStake(tier)) revert DepositBelowMinimum(tier, newStake, minStake(tier));

        uint128 oldStake = s.stake;
        delete _listings[seat];
        s.stake = SafeCast.toUint128(newStake);
        s.seatedAt = uint64(block.timestamp);
        _pushStake(_holderStake[seller], _sub, oldStake);
        _pushStake(_holderStake[msg.sender], _add, newStake);
        if (newStake >= oldStake) _pushStake(_totalStake, _add, newStake - oldStake);
        else _pushStake(_totalStake, _sub, oldStake - newStake);
        withdrawable[seller] += price + oldStake;
        --seatsOfIdentity[sellerIdentity];
        ++seatsOfIdentity[buyerIdentity];
        identityOfSeat[seat] = buyerIdentity;
        nft.daoTransfer(seller, msg.sender, seat);
        revenuePool.noteStake(seat, newStake, true);
        emit SeatSold(seat, seller, msg.sender, price, newStake, firstRefusal);
        emit StakeChanged(seat, seller, oldStake, 0);
        emit StakeChanged(seat, msg.sender, 0, newStake);
    }

    /// moveSeat: the holder moves `seat` to `to`, another KYC-valid wallet of the same KYC identity
    /// (key rotation, custody). Not a sale: allowed during the lock, which keeps running from when
    /// the identity received the seat (`unlocksAt` unchanged); the stake, votes, signer and rewards
    /// go with the seat, the stake history of both wallets is checkpointed, and the seat keeps
    /// earning in the open epoch. A listed seat or one under a dispute remedy is not moved.
    function moveSeat(uint256 seat, address to) external whenNotPaused {
        address from = _holderOf(seat);
        Seat storage s = _seats[seat];
        if (s.remedies != 0) revert SeatUnderRemedy(seat, s.remedies);
        if (_listings[seat].listedAt != 0) revert SeatIsListed(seat);
        if (to == from) revert MoveToSameWallet(seat, to);
        if (!kyc.isValid(to)) revert KycNotValid(to);
        bytes32 identity = identityOfSeat[seat];
        bytes32 toIdentity = kyc.identityOf(to);
        if (toIdentity != identity) revert NotSameIdentity(seat, to, identity, toIdentity);
        uint128 stake = s.stake;
        _pushStake(_holderStake[from], _sub, stake);
        _pushStake(_holderStake[to], _add, stake);
        nft.daoMoveKeepingLock(from, to, seat); // reverts SeatLimitReached if `to` holds 2 already
        emit SeatMoved(seat, from, to, identity, nft.unlocksAt(seat));
        emit StakeChanged(seat, from, stake, 0);
        emit StakeChanged(seat, to, 0, stake);
    }

    /// withdraw pays the caller's refunds and sale proceeds. Never paused.
    function withdraw() external nonReentrant {
        uint256 amount = withdrawable[msg.sender];
        if (amount == 0) revert NothingToWithdraw(msg.sender);
        withdrawable[msg.sender] = 0;
        (bool ok,) = msg.sender.call{value: amount}("");
        if (!ok) revert PaymentFailed(msg.sender, amount);
        emit Withdrawn(msg.sender, amount);
    }

    // ---------------------------------------------------------------------------------------
    // Governance, operations, disputes

    /// setDocuments publishes new versions of the three DAO documents (the Timelock).
    function setDocuments(bytes32 disclaimer, bytes32 riskWarning, bytes32 informationMemorandum)
        external
        onlyRole(DEFAULT_ADMIN_ROLE)
    {
        _setDocuments(disclaimer, riskWarning, informationMemorandum);
    }

    function pause() external onlyRole(PAUSER_ROLE) {
        _pause();
    }

    function unpause() external onlyRole(PAUSER_ROLE) {
        _unpause();
    }

    /// setRemedies sets the seat's dispute remedies (Remedies bit flags). CANCEL_LISTING acts once;
    /// lifting HOLD_REWARDS releases the held rewards to the holder or back into the revenue pool.
    function setRemedies(uint256 seat, uint8 remedies, bool releaseHeldToHolder) external onlyRole(DISPUTE_ROLE) {
        nft.ownerOf(seat);
        Seat storage s = _seats[seat];
        uint8 old = s.remedies;
        if (remedies & Remedies.CANCEL_LISTING != 0 && _listings[seat].listedAt != 0) {
            delete _listings[seat];
            emit ListingCancelled(seat, msg.sender);
        }
        uint8 kept = remedies & (Remedies.ALL ^ Remedies.CANCEL_LISTING);
        uint8 changed = old ^ kept;
        if (changed & Remedies.SUSPEND_VOTES != 0) nft.setSuspended(seat, kept & Remedies.SUSPEND_VOTES != 0);
        if (changed & Remedies.HOLD_REWARDS != 0) {
            revenuePool.setRewardHold(seat, kept & Remedies.HOLD_REWARDS != 0, releaseHeldToHolder);
        }
        s.remedies = kept;
        emit RemediesChanged(seat, old, kept);
    }

    // ---------------------------------------------------------------------------------------
    // Views

    /// minStake: the tier's minimum deposit in wei.
    function minStake(uint8 tier) public view returns (uint256) {
        Seats.checkTier(tier);
        return tier == 1 ? _minStakeI : tier == 2 ? _minStakeII : _minStakeIII;
    }

    function seatedCount(uint8 tier) external view returns (uint256) {
        Seats.checkTier(tier);
        return _seated[tier];
    }

    function stakeOf(uint256 seat) external view returns (uint256) {
        return _seats[seat].stake;
    }

    function seatInfo(uint256 seat) external view returns (Seat memory) {
        return _seats[seat];
    }

    function remediesOf(uint256 seat) external view returns (uint8) {
        return _seats[seat].remedies;
    }

    function listingOf(uint256 seat) external view returns (uint256 price, uint64 listedAt, uint64 firstRefusalEndsAt) {
        Listing memory l = _listings[seat];
        return (l.price, l.listedAt, l.listedAt == 0 ? 0 : l.listedAt + firstRefusalWindow);
    }

    function applicationOf(uint256 id) external view returns (Application memory) {
        return _applications[id];
    }

    /// clock: the timestamp clock shared with the ValidatorNFT votes (ERC-6372 mode=timestamp).
    function clock() public view returns (uint48) {
        return uint48(block.timestamp);
    }

    /// stakeOfHolder: the coins `account` has locked over all its seats now.
    function stakeOfHolder(address account) external view returns (uint256) {
        return _holderStake[account].latest();
    }

    /// getPastStake: the coins `account` had locked at `timepoint` (for the Governor's tie-break).
    function getPastStake(address account, uint256 timepoint) external view returns (uint256) {
        return _holderStake[account].upperLookupRecent(_pastTimepoint(timepoint));
    }

    function totalStake() external view returns (uint256) {
        return _totalStake.latest();
    }

    function getPastTotalStake(uint256 timepoint) external view returns (uint256) {
        return _totalStake.upperLookupRecent(_pastTimepoint(timepoint));
    }

    /// rankedSeats: the seated seats of `tier` in rank order: institutions (Government / Religious
    /// KYC category of the holder) first, then stake descending, then the earliest seated, then the
    /// lowest id. Rank affects neither votes nor rewards.
    function rankedSeats(uint8 tier) external view returns (uint256[] memory ranked) {
        uint256 n = _seated[tier];
        uint256 first = Seats.firstSeat(tier);
        ranked = new uint256[](n);
        uint256[] memory keyInst = new uint256[](n);
        for (uint256 i = 0; i < n; ++i) {
            uint256 seat = first + i;
            KycCategory c = kyc.categoryOf(nft.ownerOf(seat));
            uint256 inst = c == KycCategory.Government || c == KycCategory.Religious ? 1 : 0;
            // insertion sort: move worse-ranked entries one place down
            uint256 j = i;
            while (j > 0 && _ranksBefore(seat, inst, ranked[j - 1], keyInst[j - 1])) {
                ranked[j] = ranked[j - 1];
                keyInst[j] = keyInst[j - 1];
                --j;
            }
            ranked[j] = seat;
            keyInst[j] = inst;
        }
    }

    // ---------------------------------------------------------------------------------------
    // Internals

    function _ranksBefore(uint256 a, uint256 instA, uint256 b, uint256 instB) private view returns (bool) {
        if (instA != instB) return instA > instB;
        Seat storage sa = _seats[a];
        Seat storage sb = _seats[b];
        if (sa.stake != sb.stake) return sa.stake > sb.stake;
        if (sa.seatedAt != sb.seatedAt) return sa.seatedAt < sb.seatedAt;
        return a < b;
    }

    /// _checkSeatLimit: `account`'s identity may take one more seat (held + pending < 2).
    function _checkSeatLimit(address account, bytes32 identity) private view {
        if (seatsOfIdentity[identity] + pendingOfIdentity[identity] >= MAX_SEATS_PER_IDENTITY) {
            revert SeatLimitReached(account, identity);
        }
    }

    function _pending(uint256 id) private view returns (Application storage a) {
        a = _applications[id];
        if (a.status != ApplicationStatus.Pending) revert ApplicationNotPending(id);
    }

    function _holderOf(uint256 seat) private view returns (address holder) {
        holder = nft.ownerOf(seat);
        if (holder != msg.sender) revert NotSeatHolder(seat, msg.sender);
    }

    function _setDocuments(bytes32 disclaimer, bytes32 riskWarning, bytes32 informationMemorandum) private {
        disclaimerHash = disclaimer;
        riskWarningHash = riskWarning;
        informationMemorandumHash = informationMemorandum;
        emit DocumentsUpdated(disclaimer, riskWarning, informationMemorandum);
    }

    function _pastTimepoint(uint256 timepoint) private view returns (uint48) {
        if (timepoint >= block.timestamp) revert FutureLookup(timepoint, block.timestamp);
        return uint48(timepoint);
    }

    function _pushStake(
        Checkpoints.Trace208 storage trace,
        function(uint256, uint256) pure returns (uint256) op,
        uint256 delta
    ) private {
        trace.push(uint48(block.timestamp), SafeCast.toUint208(op(trace.latest(), delta)));
    }

    function _add(uint256 a, uint256 b) private pure returns (uint256) {
        return a + b;
    }

    function _sub(uint256 a, uint256 b) private pure returns (uint256) {
        return a - b;
    }
}
