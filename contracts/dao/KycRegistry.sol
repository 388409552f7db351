// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {IKycRegistry, KycCategory} from "./DaoTypes.sol";

/// KycRegistry - KYC attestations for the Validator DAO (spec: "Validators must pass KYC"; "a
/// non-validator buyer needs KYC approval before transfer").
///
/// An attestor (KYC_ATTESTOR_ROLE: a compliance provider or the Ops Safe) records per account the
/// status, an expiry, the hash of the off-chain evidence (the evidence itself never goes on chain)
/// and the category (Individual / Company / Government / Religious; the last two rank first within
/// their tier). An attestation is valid while approved and not expired. The admin (the Timelock)
/// grants and revokes the attestor role.
contract KycRegistry is AccessControl, IKycRegistry {
    bytes32 public constant KYC_ATTESTOR_ROLE = keccak256("KYC_ATTESTOR_ROLE");

    enum Status {
        None,
        Approved,
        Revoked
    }

    struct Attestation {
        Status status;
        KycCategory category;
        uint64 expiresAt;
        uint64 attestedAt;
        address attestor;
        bytes32 evidenceHash;
    }

    /// Category None, an expiry not in the future, or an empty evidence hash.
    error InvalidAttestation(address account);
    /// Revoking an account that holds no approved attestation.
    error NotAttested(address account);
    error ZeroAddress();

    event Attested(
        address indexed account,
        KycCategory category,
        uint64 expiresAt,
        bytes32 evidenceHash,
        address indexed attestor
    );
    event AttestationRevoked(address indexed account, bytes32 reasonHash, address indexed attestor);

    mapping(address account => Attestation) private _attestations;

    constructor(address admin, address[] memory attestors) {
        if (admin == address(0)) revert ZeroAddress();
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        for (uint256 i = 0; i < attestors.length; ++i) _grantRole(KYC_ATTESTOR_ROLE, attestors[i]);
    }

    /// attest records (or renews) the KYC approval of `account` until `expiresAt` (unix seconds).
    function attest(address account, KycCategory category, uint64 expiresAt, bytes32 evidenceHash)
        external
        onlyRole(KYC_ATTESTOR_ROLE)
    {
        _attest(account, category, expiresAt, evidenceHash);
    }

    /// attestBatch approves many accounts with one category, expiry and evidence bundle hash.
    function attestBatch(address[] calldata accounts, KycCategory category, uint64 expiresAt, bytes32 evidenceHash)
        external
        onlyRole(KYC_ATTESTOR_ROLE)
    {
        for (uint256 i = 0; i < accounts.length; ++i) _attest(accounts[i], category, expiresAt, evidenceHash);
    }

    /// revoke ends the approval of `account` at once; `reasonHash` points to the off-chain record.
    function revoke(address account, bytes32 reasonHash) external onlyRole(KYC_ATTESTOR_ROLE) {
        Attestation storage a = _attestations[account];
        if (a.status != Status.Approved) revert NotAttested(account);
        a.status = Status.Revoked;
        emit AttestationRevoked(account, reasonHash, msg.sender);
    }

    /// isValid: approved and not expired.
    function isValid(address account) public view returns (bool) {
        Attestation storage a = _attestations[account];
        return a.status == Status.Approved && a.expiresAt > block.timestamp;
    }

    /// categoryOf: the category of a valid attestation, None otherwise.
    function categoryOf(address account) external view returns (KycCategory) {
        return isValid(account) ? _attestations[account].category : KycCategory.None;
    }

    function attestationOf(address account) external view returns (Attestation memory) {
        return _attestations[account];
    }

    function _attest(address account, KycCategory category, uint64 expiresAt, bytes32 evidenceHash) private {
        if (
            account == address(0) || category == KycCategory.None || expiresAt <= block.timestamp
                || evidenceHash == bytes32(0)
        ) revert InvalidAttestation(account);
        _attestations[account] = Attestation({
            status: Status.Approved,
            category: category,
            expiresAt: expiresAt,
            attestedAt: uint64(block.timestamp),
            attestor: msg.sender,
            evidenceHash: evidenceHash
        });
        emit Attested(account, category, expiresAt, evidenceHash, msg.sender);
    }
}
