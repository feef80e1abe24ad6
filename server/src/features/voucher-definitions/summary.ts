import type { VoucherDefinitionRecord } from '../../domain/model';
import type { VoucherDefinitionSummary } from '../../domain/services';

type RewardMetadata = VoucherDefinitionSummary['rewardMetadata'];
type ExpiryRule = VoucherDefinitionSummary['expiryRule'];

/**
 * The member-facing view of a definition. Built field by field, so that
 * administrative fields (status, adminId, systemOfRecord, version, basedOn,
 * features, the metadata's scopeType) can never leak through a spread.
 */
export function toSummary(definition: VoucherDefinitionRecord): VoucherDefinitionSummary {
  return {
    voucherDefinitionId: definition.voucherDefinitionId,
    businessUnit: definition.businessUnit,
    definitionName: definition.definitionName,
    rewardType: definition.rewardType,
    rewardValue: definition.rewardMetadata.amount,
    rewardMetadata: rewardMetadataOf(definition),
    scope: definition.rewardMetadata.scopeType,
    expiryRule: expiryRuleOf(definition),
    creative: definition.creative,
    pointValue: definition.pointValue,
    redeemableValue: definition.redeemableValue,
  };
}

function rewardMetadataOf(definition: VoucherDefinitionRecord): RewardMetadata {
  const { amount, unit } = definition.rewardMetadata;
  return unit === undefined ? { amount } : { amount, unit };
}

function expiryRuleOf(definition: VoucherDefinitionRecord): ExpiryRule {
  const { type, rollingDays } = definition.expiryRule;
  return rollingDays === undefined ? { type } : { type, rollingDays };
}
