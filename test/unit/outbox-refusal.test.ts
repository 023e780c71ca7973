import { ServiceError } from '@temporalio/client';
import { refusal } from '../../src/outbox/refusal';

/** A gRPC error as @grpc/grpc-js builds it (code, details, metadata), wrapped as the Temporal client throws it. */
const grpc = (code: number, details: string) =>
  new ServiceError('Failed to signal Workflow', {
    cause: Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} }),
  });

test('21.4 Temporal refusals: final ones dead-letter at once, limits and unsendable rows after the attempts, outages never', () => {
  expect(refusal(grpc(3, 'WorkflowId length exceeds limit.'))).toBe('final');
  expect(refusal(grpc(9, 'Namespace is not active'))).toBe('final');
  // The run's signal limit, as the server reports it (InvalidArgument or ResourceExhausted by version): it lifts when
  // the run continues as new.
  expect(refusal(grpc(3, 'exceeded workflow execution limit for signal events'))).toBe('refused');
  expect(refusal(grpc(8, 'Exceeded workflow execution limit for signal events'))).toBe('refused');
  expect(refusal(grpc(14, 'No connection established'))).toBe('unavailable');
  expect(refusal(grpc(4, 'Deadline exceeded'))).toBe('unavailable');
  // Not Temporal's answer: the row itself cannot be sent (e.g. a payload the client cannot convert).
  expect(refusal(new Error('Unable to convert value'))).toBe('refused');
});
