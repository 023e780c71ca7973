import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Typed search attributes every lifecycle workflow keeps current, so operators filter in the Temporal UI
 * (`IntentStatus = 'PENDING' AND Account = '0x…'`). Registered by temporal/search-attributes.txt (dev server) and
 * the compose file's setup job (cluster).
 */
export const IntentStatus = defineSearchAttributeKey('IntentStatus', SearchAttributeType.KEYWORD);
export const Account = defineSearchAttributeKey('Account', SearchAttributeType.KEYWORD);
export const Project = defineSearchAttributeKey('Project', SearchAttributeType.KEYWORD);
export const Chains = defineSearchAttributeKey('Chains', SearchAttributeType.KEYWORD_LIST);
