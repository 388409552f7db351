// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {IKycRegistry, IValidatorDAO, IValidatorNFT, Remedies} from "./DaoTypes.sol";

/// DisputeResolution - cases about a seat, decided by a panel of three arbitrators (2 of 3), with an
/// appeal to the Shariah board Safe or to governance (a Governor proposal executed by the Timelock)
/// (spec: "Smart contracts handle ... dispute resolution"; "Security measures planned: ... dispute
/// resolution, and a public record of DAO activity on chain").
///
///   fileCase (KYC-valid filer, one open case per seat)          -> Filed
///   assignPanel (CASE_MANAGER_ROLE: Ops Safe; 3 distinct arbitrators, neither filer nor holder)
///                                                               -> Panel
///   castDecision x2 agreeing (upheld + remedies, or dismissed)  -> Decided   (remedies applied now)
///     three disagreeing votes                                   -> Filed     (new panel)
///   appeal (filer or seat holder, within appealWindow)          -> Appealed
///   resolveAppeal (SHARIAH_BOARD_ROLE or the Timelock)          -> Closed    (final remedies set)
///   closeCase (anyone, after appealWindow)                      -> Closed
///   liftRemedies (SHARIAH_BOARD_ROLE or the Timelock)           -> seat free of remedies; held
///                                                                  rewards released or forfeited
///
/// Remedies (Remedies flags) freeze the seat, suspend its votes, hold its rewards, cancel its
/// listing. No remedy takes locked coins: there is no code path from here to a seat's stake.
contract DisputeResolution is AccessControl {
    bytes32 public constant ARBITRATOR_ROLE = keccak256("ARBITRATOR_ROLE");
    bytes32 public constant CASE_MANAGER_ROLE = keccak256("CASE_MANAGER_ROLE");
    bytes32 public constant SHARIAH_BOARD_ROLE = keccak256("SHARIAH_BOARD_ROLE");

    enum Category {
        Conduct,
        Kyc,
        Revenue,
        Transfer,
        Shariah,
        Other
    }

    enum Status {
        None,
        Filed,
        Panel,
        Decided,
        Appealed,
        Closed
    }

    struct Case {
        address filer;
        Category category;
        Status status;
        bool upheld;
        uint8 remedies;
        uint16 seat;
        uint64 filedAt;
        uint64 appealDeadline;
        bool remediesActive;
        bytes32 evidenceHash;
        address[3] panel;
    }

    struct Ballot {
        bool cast;
        bool upheld;
        uint8 remedies;
    }

    error ZeroAddress();
    error KycNotValid(address account);
    error CaseAlreadyOpen(uint256 seat, uint256 caseId);
    error WrongStatus(uint256 caseId, Status status);
    error InvalidPanel();
    error NotOnPanel(uint256 caseId, address caller);
    error AlreadyDecided(uint256 caseId, address arbitrator);
    error InvalidRemedies(uint8 remedies);
    error AppealWindowClosed(uint256 caseId, uint64 deadline);
    error AppealWindowOpen(uint256 caseId, uint64 deadline);
    error NotParty(uint256 caseId, address caller);
    error NotFinalAuthority(address caller);
    error NoActiveRemedies(uint256 caseId);

    event CaseFiled(
        uint256 indexed caseId, address indexed filer, uint256 indexed seat, Category category, bytes32 evidenceHash
    );
    event PanelAssigned(uint256 indexed caseId, address[3] panel);
    event DecisionCast(uint256 indexed caseId, address indexed arbitrator, bool upheld, uint8 remedies);
    event NoMajority(uint256 indexed caseId);
    event CaseDecided(uint256 indexed caseId, bool upheld, uint8 remedies, uint64 appealDeadline);
    event CaseAppealed(uint256 indexed caseId, address indexed by, bytes32 groundsHash);
    event AppealResolved(uint256 indexed caseId, address indexed by, bool upheld, uint8 remedies);
    event CaseClosed(uint256 indexed caseId, bool upheld, uint8 remedies);
    event RemediesLifted(uint256 indexed caseId, uint256 indexed seat, bool heldRewardsToHolder);

    IValidatorDAO public immutable dao;
    IValidatorNFT public immutable nft;
    IKycRegistry public immutable kyc;
    /// Seconds after a panel decision during which a party may appeal (production 14 days).
    uint64 public immutable appealWindow;

    uint256 public caseCount;
    mapping(uint256 caseId => Case) private _cases;
    mapping(uint256 caseId => mapping(address arbitrator => Ballot)) private _ballots;
    /// The case that is open on a seat or whose remedies are in force (0 = none).
    mapping(uint256 seat => uint256 caseId) public activeCaseOf;

    struct Config {
        address admin;
        IValidatorDAO dao;
        IValidatorNFT nft;
        IKycRegistry kyc;
        uint64 appealWindow;
        address[] caseManagers;
        address[] arbitrators;
        address[] shariahBoard;
    }

    constructor(Config memory c) {
        if (c.admin == address(0)) revert ZeroAddress();
        dao = c.dao;
        nft = c.nft;
        kyc = c.kyc;
        appealWindow = c.appealWindow;
        _grantRole(DEFAULT_ADMIN_ROLE, c.admin);
        for (uint256 i = 0; i < c.caseManagers.length; ++i) _grantRole(CASE_MANAGER_ROLE, c.caseManagers[i]);
        for (uint256 i = 0; i < c.arbitrators.length; ++i) _grantRole(ARBITRATOR_ROLE, c.arbitrators[i]);
        for (uint256 i = 0; i < c.shariahBoard.length; ++i) _grantRole(SHARIAH_BOARD_ROLE, c.shariahBoard[i]);
    }

    /// fileCase opens a case about `seat`; the evidence stays off chain, its hash on chain.
    function fileCase(Category category, uint256 seat, bytes32 evidenceHash) external returns (uint256 caseId) {
        if (!kyc.isValid(msg.sender)) revert KycNotValid(msg.sender);
        nft.ownerOf(seat); // the seat must exist
        uint256 open = activeCaseOf[seat];
        if (open != 0) revert CaseAlreadyOpen(seat, open);
        caseId = ++caseCount;
        Case storage c = _cases[caseId];
        c.filer = msg.sender;
        c.category = category;
        c.status = Status.Filed;
        c.seat = uint16(seat);
        c.filedAt = uint64(block.timestamp);
        c.evidenceHash = evidenceHash;
        activeCaseOf[seat] = caseId;
        emit CaseFiled(caseId, msg.sender, seat, category, evidenceHash);
    }

    /// assignPanel names three distinct arbitrators, none of them the filer or the seat's holder.
    function assignPanel(uint256 caseId, address[3] calldata panel) external onlyRole(CASE_MANAGER_ROLE) {
        Case storage c = _inStatus(caseId, Status.Filed);
        address holder = nft.ownerOf(c.seat);
        for (uint256 i = 0; i < 3; ++i) {
            address a = panel[i];
            if (!hasRole(ARBITRATOR_ROLE, a) || a == c.filer || a == holder) revert InvalidPanel();
            for (uint256 j = 0; j < i; ++j) if (panel[j] == a) revert InvalidPanel();
        }
        c.panel = panel;
        c.status = Status.Panel;
        emit PanelAssigned(caseId, panel);
    }

    /// castDecision: a panel member's ruling. Two agreeing rulings decide the case.
    function castDecision(uint256 caseId, bool upheld, uint8 remedies) external {
        Case storage c = _inStatus(caseId, Status.Panel);
        if (!upheld) remedies = 0;
        if (remedies > Remedies.ALL || (upheld && remedies == 0)) revert InvalidRemedies(remedies);
        if (c.panel[0] != msg.sender && c.panel[1] != msg.sender && c.panel[2] != msg.sender) {
            revert NotOnPanel(caseId, msg.sender);
        }
        if (_ballots[caseId][msg.sender].cast) revert AlreadyDecided(caseId, msg.sender);
        _ballots[caseId][msg.sender] = Ballot({cast: true, upheld: upheld, remedies: remedies});
        emit DecisionCast(caseId, msg.sender, upheld, remedies);
        uint256 others;
        for (uint256 i = 0; i < 3; ++i) {
            address a = c.panel[i];
            if (a == msg.sender) continue;
            Ballot storage b = _ballots[caseId][a];
            if (!b.cast) continue;
            ++others;
            if (b.upheld == upheld && b.remedies == remedies) {
                _decide(caseId, c, upheld, remedies); // a second agreeing ruling decides
                return;
            }
        }
        if (others == 2) {
            // three different rulings: back to the case manager for a new panel
            for (uint256 i = 0; i < 3; ++i) delete _ballots[caseId][c.panel[i]];
            delete c.panel;
            c.status = Status.Filed;
            emit NoMajority(caseId);
        }
    }

    /// appeal a decision within the appeal window (the filer or the seat's holder).
    function appeal(uint256 caseId, bytes32 groundsHash) external {
        Case storage c = _inStatus(caseId, Status.Decided);
        if (block.timestamp >= c.appealDeadline) revert AppealWindowClosed(caseId, c.appealDeadline);
        if (msg.sender != c.filer && msg.sender != nft.ownerOf(c.seat)) revert NotParty(caseId, msg.sender);
        c.status = Status.Appealed;
        emit CaseAppealed(caseId, msg.sender, groundsHash);
    }

    /// resolveAppeal: the final word, by the Shariah board Safe or by governance (the Timelock).
    function resolveAppeal(uint256 caseId, bool upheld, uint8 remedies) external {
        _onlyFinalAuthority();
        Case storage c = _inStatus(caseId, Status.Appealed);
        if (!upheld) remedies = 0;
        if (remedies > Remedies.ALL || (upheld && remedies == 0)) revert InvalidRemedies(remedies);
        c.upheld = upheld;
        c.remedies = remedies;
        c.status = Status.Closed;
        _setSeatRemedies(c, remedies, true);
        emit AppealResolved(caseId, msg.sender, upheld, remedies);
        emit CaseClosed(caseId, upheld, remedies);
    }

    /// closeCase makes an unappealed decision final once the appeal window has passed.
    function closeCase(uint256 caseId) external {
        Case storage c = _inStatus(caseId, Status.Decided);
        if (block.timestamp < c.appealDeadline) revert AppealWindowOpen(caseId, c.appealDeadline);
        c.status = Status.Closed;
        if (!c.remediesActive) activeCaseOf[c.seat] = 0;
        emit CaseClosed(caseId, c.upheld, c.remedies);
    }

    /// liftRemedies ends a closed case's remedies; held rewards go to the holder or back to revenue.
    function liftRemedies(uint256 caseId, bool heldRewardsToHolder) external {
        _onlyFinalAuthority();
        Case storage c = _inStatus(caseId, Status.Closed);
        if (!c.remediesActive) revert NoActiveRemedies(caseId);
        _setSeatRemedies(c, 0, heldRewardsToHolder);
        emit RemediesLifted(caseId, c.seat, heldRewardsToHolder);
    }

    function caseOf(uint256 caseId) external view returns (Case memory) {
        return _cases[caseId];
    }

    function ballotOf(uint256 caseId, address arbitrator) external view returns (Ballot memory) {
        return _ballots[caseId][arbitrator];
    }

    function _decide(uint256 caseId, Case storage c, bool upheld, uint8 remedies) private {
        c.status = Status.Decided;
        c.upheld = upheld;
        c.remedies = remedies;
        c.appealDeadline = uint64(block.timestamp) + appealWindow;
        if (upheld) _setSeatRemedies(c, remedies, true);
        emit CaseDecided(caseId, upheld, remedies, c.appealDeadline);
    }

    function _setSeatRemedies(Case storage c, uint8 remedies, bool heldToHolder) private {
        if (remedies != 0 || c.remediesActive) dao.setRemedies(c.seat, remedies, heldToHolder);
        c.remediesActive = remedies & (Remedies.ALL ^ Remedies.CANCEL_LISTING) != 0;
        if (!c.remediesActive && c.status == Status.Closed) activeCaseOf[c.seat] = 0;
    }

    function _inStatus(uint256 caseId, Status status) private view returns (Case storage c) {
        c = _cases[caseId];
        if (c.status != status) revert WrongStatus(caseId, c.status);
    }

    function _onlyFinalAuthority() private view {
        if (!hasRole(SHARIAH_BOARD_ROLE, msg.sender) && !hasRole(DEFAULT_ADMIN_ROLE, msg.sender)) {
            revert NotFinalAuthority(msg.sender);
        }
    }
}
