import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Typed search attributes every lifecycle workflow keeps current, so operators filter in the Temporal UI
 * (`IntentStatus = 'PENDING' AND Account = '0x…'`). Listed in temporal/search-attributes.txt, which the dev server
 * and temporal/start-cluster.sh register; the compose file's setup job registers them on its cluster.
 */
export const IntentStatus = defineSearchAttributeKey('IntentStatus', SearchAttributeType.KEYWORD);
export const Account = defineSearchAttributeKey('Account', SearchAttributeType.KEYWORD);
export const Project = defineSearchAttributeKey('Project', SearchAttributeType.KEYWORD);
export const Chains = defineSearchAttributeKey('Chains', SearchAttributeType.KEYWORD_LIST);
