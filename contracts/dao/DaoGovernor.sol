// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Governor} from "@openzeppelin/contracts/governance/Governor.sol";
import {IGovernor} from "@openzeppelin/contracts/governance/IGovernor.sol";
import {GovernorSettings} from "@openzeppelin/contracts/governance/extensions/GovernorSettings.sol";
import {GovernorTimelockControl} from "@openzeppelin/contracts/governance/extensions/GovernorTimelockControl.sol";
import {GovernorVotes} from "@openzeppelin/contracts/governance/extensions/GovernorVotes.sol";
import {GovernorVotesQuorumFraction} from
    "@openzeppelin/contracts/governance/extensions/GovernorVotesQuorumFraction.sol";
import {TimelockController} from "@openzeppelin/contracts/governance/TimelockController.sol";
import {IVotes} from "@openzeppelin/contracts/governance/utils/IVotes.sol";

/// Past locked stake per account (the ValidatorDAO's stake history).
interface IStakeHistory {
    function getPastStake(address account, uint256 timepoint) external view returns (uint256);
}

/// DaoGovernor - proposals and tier-weighted votes of the Validator DAO (spec: "total voting weight is
/// 1000; a tied proposal is decided by the proportional coin holdings of voters for and against").
///
/// Votes come from the ValidatorNFT (50 / 10 / 1 per seat, no delegation) at the proposal snapshot.
/// Votes are Against / For / Abstain; the quorum counts all three (participation), so a tie of a
/// quorate turnout reaches the tie-break. Each For or Against vote also adds the voter's locked
/// stake at the snapshot (HF / HA) to its side.
///
///   succeeded  iff  quorum reached  and  (F > A  or  (F = A  and  HF > HA))
///
/// HF = HA (including 0 = 0) is defeated; abstainers' holdings are ignored, as are holdings of
/// voters with no votes at the snapshot (suspended seats) and stake added after the snapshot.
/// Passed proposals are queued in and executed by the DaoTimelock.
contract DaoGovernor is
    Governor,
    GovernorSettings,
    GovernorVotes,
    GovernorVotesQuorumFraction,
    GovernorTimelockControl
{
    enum VoteType {
        Against,
        For,
        Abstain
    }

    struct ProposalTally {
        uint256 againstVotes;
        uint256 forVotes;
        uint256 abstainVotes;
        uint256 againstHoldings;
        uint256 forHoldings;
        mapping(address voter => bool) hasVoted;
    }

    struct Settings {
        IVotes token;
        TimelockController timelock;
        IStakeHistory stakeHistory;
        /// Seconds from proposal to snapshot (production 1 day).
        uint48 votingDelay;
        /// Seconds of voting (production 7 days).
        uint32 votingPeriod;
        /// Votes needed to propose (production 1: any seated validator).
        uint256 proposalThreshold;
        /// Quorum: percent of the total votes at the snapshot that must take part (production 40).
        uint256 quorumPercent;
    }

    IStakeHistory public immutable stakeHistory;
    mapping(uint256 proposalId => ProposalTally) private _tallies;

    constructor(Settings memory s)
        Governor("Validator DAO Governor")
        GovernorSettings(s.votingDelay, s.votingPeriod, s.proposalThreshold)
        GovernorVotes(s.token)
        GovernorVotesQuorumFraction(s.quorumPercent)
        GovernorTimelockControl(s.timelock)
    {
        stakeHistory = s.stakeHistory;
    }

    // solhint-disable-next-line func-name-mixedcase
    function COUNTING_MODE() public pure override returns (string memory) {
        return "support=bravo&quorum=for,against,abstain&tiebreak=holdings";
    }

    function hasVoted(uint256 proposalId, address account) public view override returns (bool) {
        return _tallies[proposalId].hasVoted[account];
    }

    function proposalVotes(uint256 proposalId)
        external
        view
        returns (uint256 againstVotes, uint256 forVotes, uint256 abstainVotes)
    {
        ProposalTally storage t = _tallies[proposalId];
        return (t.againstVotes, t.forVotes, t.abstainVotes);
    }

    /// proposalHoldings: locked stake at the snapshot of the Against and For voters (HA, HF).
    function proposalHoldings(uint256 proposalId)
        external
        view
        returns (uint256 againstHoldings, uint256 forHoldings)
    {
        ProposalTally storage t = _tallies[proposalId];
        return (t.againstHoldings, t.forHoldings);
    }

    function _quorumReached(uint256 proposalId) internal view override returns (bool) {
        ProposalTally storage t = _tallies[proposalId];
        return quorum(proposalSnapshot(proposalId)) <= t.forVotes + t.againstVotes + t.abstainVotes;
    }

    function _voteSucceeded(uint256 proposalId) internal view override returns (bool) {
        ProposalTally storage t = _tallies[proposalId];
        if (t.forVotes != t.againstVotes) return t.forVotes > t.againstVotes;
        return t.forHoldings > t.againstHoldings;
    }

    function _countVote(uint256 proposalId, address account, uint8 support, uint256 totalWeight, bytes memory)
        internal
        override
        returns (uint256)
    {
        ProposalTally storage t = _tallies[proposalId];
        if (t.hasVoted[account]) revert GovernorAlreadyCastVote(account);
        t.hasVoted[account] = true;
        if (support == uint8(VoteType.Abstain)) {
            t.abstainVotes += totalWeight;
            return totalWeight;
        }
        if (support > uint8(VoteType.Abstain)) revert GovernorInvalidVoteType();
        uint256 holdings =
            totalWeight == 0 ? 0 : stakeHistory.getPastStake(account, proposalSnapshot(proposalId));
        if (support == uint8(VoteType.For)) {
            t.forVotes += totalWeight;
            t.forHoldings += holdings;
        } else {
            t.againstVotes += totalWeight;
            t.againstHoldings += holdings;
        }
        return totalWeight;
    }

    // ---------------------------------------------------------------------------------------
    // Required overrides

    function votingDelay() public view override(Governor, GovernorSettings) returns (uint256) {
        return super.votingDelay();
    }

    function votingPeriod() public view override(Governor, GovernorSettings) returns (uint256) {
        return super.votingPeriod();
    }

    function proposalThreshold() public view override(Governor, GovernorSettings) returns (uint256) {
        return super.proposalThreshold();
    }

    function quorum(uint256 timepoint)
        public
        view
        override(Governor, GovernorVotesQuorumFraction)
        returns (uint256)
    {
        return super.quorum(timepoint);
    }

    function state(uint256 proposalId)
        public
        view
        override(Governor, GovernorTimelockControl)
        returns (ProposalState)
    {
        return super.state(proposalId);
    }

    function proposalNeedsQueuing(uint256 proposalId)
        public
        view
        override(Governor, GovernorTimelockControl)
        returns (bool)
    {
        return super.proposalNeedsQueuing(proposalId);
    }

    function _queueOperations(
        uint256 proposalId,
        address[] memory targets,
        uint256[] memory values,
        bytes[] memory calldatas,
        bytes32 descriptionHash
    ) internal override(Governor, GovernorTimelockControl) returns (uint48) {
        return super._queueOperations(proposalId, targets, values, calldatas, descriptionHash);
    }

    function _executeOperations(
        uint256 proposalId,
        address[] memory targets,
        uint256[] memory values,
        bytes[] memory calldatas,
        bytes32 descriptionHash
    ) internal override(Governor, GovernorTimelockControl) {
        super._executeOperations(proposalId, targets, values, calldatas, descriptionHash);
    }

    function _cancel(
        address[] memory targets,
        uint256[] memory values,
        bytes[] memory calldatas,
        bytes32 descriptionHash
    ) internal override(Governor, GovernorTimelockControl) returns (uint256) {
        return super._cancel(targets, values, calldatas, descriptionHash);
    }

    function _executor() internal view override(Governor, GovernorTimelockControl) returns (address) {
        return super._executor();
    }
}
