// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {IKycRegistry, KycCategory} from "./DaoTypes.sol";

/// KycRegistry - KYC attestations for the Validator DAO (spec: "Validators must pass KYC"; "a
/// non-validator buyer needs KYC approval before transfer").
///
/// An attestor (KYC_ATTESTOR_ROLE: a compliance provider or the Ops Safe) records per account the
/// status, an expiry, the hash of the off-chain evidence (the evidence itself never goes on chain),
/// the category (Individual / Company / Government / Religious; the last two rank first within
/// their tier) and the KYC identity the account belongs to. An attestation is valid while approved
/// and not expired. The admin (the Timelock) grants and revokes the attestor role.
///
/// The identity is what a validator is: one person or entity, whatever number of wallets it
/// has. The attestor sets it as a salted commitment, identity = keccak256(salt || the attestor's
/// own record key of the verified person or entity), salt and record kept off chain, so nothing
/// personal is on chain and the value cannot be guessed from public data. Every wallet the
/// attestor verifies as belonging to one person or entity gets the same commitment; the
/// ValidatorDAO counts seats, pending applications and first refusal per identity. An account is
/// bound to its first identity for good: a renewal must repeat it (`IdentityMismatch`), so a
/// wallet cannot be moved to another identity to get around the 2-seat cap.
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
        /// Salted commitment to the KYC identity (person or entity) the account belongs to.
        bytes32 identity;
    }

    /// Category None, an expiry not in the future, an empty evidence hash or an empty identity.
    error InvalidAttestation(address account);
    /// The account is bound to identity `bound`; an attestation naming `given` is refused.
    error IdentityMismatch(address account, bytes32 bound, bytes32 given);
    /// attestBatch got a different number of accounts and identities.
    error LengthMismatch(uint256 accounts, uint256 identities);
    /// Revoking an account that holds no approved attestation.
    error NotAttested(address account);
    error ZeroAddress();

    event Attested(
        address indexed account,
        bytes32 indexed identity,
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

    /// attest records (or renews) the KYC approval of `account`, a wallet of the KYC identity
    /// `identity` (salted commitment, contract doc), until `expiresAt` (unix seconds).
    function attest(address account, bytes32 identity, KycCategory category, uint64 expiresAt, bytes32 evidenceHash)
        external
        onlyRole(KYC_ATTESTOR_ROLE)
    {
        _attest(account, identity, category, expiresAt, evidenceHash);
    }

    /// attestBatch approves many accounts (`identities[i]` the identity of `accounts[i]`) with one
    /// category, expiry and evidence bundle hash.
    function attestBatch(
        address[] calldata accounts,
        bytes32[] calldata identities,
        KycCategory category,
        uint64 expiresAt,
        bytes32 evidenceHash
    ) external onlyRole(KYC_ATTESTOR_ROLE) {
        if (accounts.length != identities.length) revert LengthMismatch(accounts.length, identities.length);
        for (uint256 i = 0; i < accounts.length; ++i) {
            _attest(accounts[i], identities[i], category, expiresAt, evidenceHash);
        }
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

    /// identityOf: the KYC identity `account` is bound to (valid or not; 0 = never attested).
    function identityOf(address account) external view returns (bytes32) {
        return _attestations[account].identity;
    }

    function attestationOf(address account) external view returns (Attestation memory) {
        return _attestations[account];
    }

    function _attest(address account, bytes32 identity, KycCategory category, uint64 expiresAt, bytes32 evidenceHash)
        private
    {
        if (
            account == address(0) || identity == bytes32(0) || category == KycCategory.None
                || expiresAt <= block.timestamp || evidenceHash == bytes32(0)
        ) revert InvalidAttestation(account);
        bytes32 bound = _attestations[account].identity;
        if (bound != bytes32(0) && bound != identity) revert IdentityMismatch(account, bound, identity);
        _attestations[account] = Attestation({
            status: Status.Approved,
            category: category,
            expiresAt: expiresAt,
            attestedAt: uint64(block.timestamp),
            attestor: msg.sender,
            evidenceHash: evidenceHash,
            identity: identity
        });
        emit Attested(account, identity, category, expiresAt, evidenceHash, msg.sender);
    }
}
