import { createHmac } from 'node:crypto';
import { PersonaProvider, personaState } from '../../src/compliance/persona';
import { CallbackRejected, ProviderFailed } from '../../src/compliance/provider';

const settings = {
  apiUrl: 'https://persona.test/api/v1',
  apiKey: 'persona_sandbox_key',
  templateId: 'itmpl_abc',
  webhookSecret: 'wbhsec_test',
};
const now = new Date('2026-11-23T10:00:00Z');

/** A Persona `inquiry.*` webhook event as documented (kebab-case keys, the inquiry under payload.data). */
const event = (name: string, status: string, id = 'evt_1') =>
  JSON.stringify({
    data: {
      type: 'event',
      id,
      attributes: {
        name,
        'created-at': '2026-11-23T09:59:30.000Z',
        payload: { data: { type: 'inquiry', id: 'inq_123', attributes: { status, 'reference-id': 'proj:cus:EUR' } } },
      },
    },
  });
const sign = (body: string, t = Math.floor(now.getTime() / 1000), secret = settings.webhookSecret) =>
  `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;

test('inquiry statuses map onto ours', () => {
  expect(['created', 'pending', 'expired'].map(personaState)).toEqual(['needs_input', 'needs_input', 'needs_input']);
  expect(['completed', 'needs_review'].map(personaState)).toEqual(['in_review', 'in_review']);
  expect(personaState('approved')).toBe('approved');
  expect(['declined', 'failed'].map(personaState)).toEqual(['declined', 'declined']);
  expect(() => personaState('weird')).toThrow(ProviderFailed);
});

test('callbacks: signature over t.body (any pair of a rotation), replay window, decision events', () => {
  const persona = new PersonaProvider(settings, () => now);
  const approved = event('inquiry.approved', 'approved');
  expect(persona.verifyCallback(approved, { 'persona-signature': sign(approved) })).toEqual({
    eventId: 'evt_1',
    applicantId: 'inq_123',
    state: 'approved',
    occurredAt: new Date('2026-11-23T09:59:30.000Z'),
  });
  // During a secret rotation Persona sends two pairs; one matching is enough.
  expect(
    persona.verifyCallback(approved, {
      'persona-signature': `${sign(approved, undefined, 'old_secret')} ${sign(approved)}`,
    }).state,
  ).toBe('approved');
  expect(() => persona.verifyCallback(approved, { 'persona-signature': sign(approved, undefined, 'wrong') })).toThrow(
    CallbackRejected,
  );
  expect(() =>
    persona.verifyCallback(approved, { 'persona-signature': sign(approved, Math.floor(now.getTime() / 1000) - 600) }),
  ).toThrow('Invalid callback signature');
  expect(() => persona.verifyCallback(approved, {})).toThrow('Missing or malformed signature header');
  const tampered = approved.replace('approved', 'declined');
  expect(() => persona.verifyCallback(tampered, { 'persona-signature': sign(approved) })).toThrow(CallbackRejected);
  const review = event('inquiry.marked-for-review', 'completed', 'evt_2');
  expect(persona.verifyCallback(review, { 'persona-signature': sign(review) }).state).toBe('in_review');
  const transitioned = event('inquiry.completed', 'completed', 'evt_3');
  expect(persona.verifyCallback(transitioned, { 'persona-signature': sign(transitioned) }).state).toBe('in_review');
  const notInquiry = JSON.stringify({
    data: { id: 'evt_4', attributes: { name: 'account.created', 'created-at': now.toISOString() } },
  });
  expect(() => persona.verifyCallback(notInquiry, { 'persona-signature': sign(notInquiry) })).toThrow(
    'Not a Persona inquiry event',
  );
});

test('create or resume: finds the inquiry by reference id, creates one otherwise, and asks for a one-time link', async () => {
  const calls: { method: string; url: string; body?: unknown; auth: string | null }[] = [];
  const answers: Record<string, unknown> = {
    'GET /inquiries?filter[reference-id]=proj%3Acus%3AEUR&page[size]=1': { data: [] },
    'POST /inquiries': { data: { id: 'inq_new', attributes: { status: 'created' } } },
    'POST /inquiries/inq_new/generate-one-time-link': {
      meta: { 'one-time-link': 'https://withpersona.com/verify?code=abc' },
    },
  };
  const http = (async (url: string, init: RequestInit) => {
    const key = `${init.method} ${url.replace(settings.apiUrl, '')}`;
    calls.push({
      method: init.method!,
      url,
      body: init.body ? JSON.parse(String(init.body)) : undefined,
      auth: new Headers(init.headers).get('authorization'),
    });
    return new Response(JSON.stringify(answers[key] ?? { errors: [{ title: `unexpected ${key}` }] }), {
      status: answers[key] ? 200 : 500,
    });
  }) as typeof fetch;
  const persona = new PersonaProvider(settings, () => now, http);
  const applicant = await persona.createOrResume({
    reference: 'proj:cus:EUR',
    currency: 'EUR',
    email: 'ada@example.com',
    country: 'DE',
    origin: 'https://api.example.com',
  });
  expect(applicant).toEqual({
    applicantId: 'inq_new',
    state: 'needs_input',
    link: { url: 'https://withpersona.com/verify?code=abc', expiresAt: new Date(now.getTime() + 86_400_000) },
  });
  expect(calls.map((c) => c.method)).toEqual(['GET', 'POST', 'POST']);
  expect(calls[1].body).toEqual({
    data: {
      attributes: {
        'inquiry-template-id': 'itmpl_abc',
        'reference-id': 'proj:cus:EUR',
        fields: { 'email-address': 'ada@example.com', 'address-country-code': 'DE' },
      },
    },
  });
  expect(calls.every((c) => c.auth === 'Bearer persona_sandbox_key')).toBe(true);

  // An inquiry already decided: no link, and no write.
  const decided = new PersonaProvider(
    settings,
    () => now,
    (async () =>
      new Response(JSON.stringify({ data: { id: 'inq_old', attributes: { status: 'approved' } } }))) as typeof fetch,
  );
  expect(await decided.createOrResume({ applicantId: 'inq_old', reference: 'r', currency: 'USD', origin: '' })).toEqual(
    { applicantId: 'inq_old', state: 'approved' },
  );
  // Persona out of reach is a provider failure (502); its 401/403 are ours too (22.8 below).
  const down = new PersonaProvider(settings, () => now, (async () => {
    throw new Error('ECONNREFUSED');
  }) as typeof fetch);
  await expect(down.createOrResume({ reference: 'r', currency: 'USD', origin: '' })).rejects.toThrow(ProviderFailed);
});

test('22.8 Persona refusing our own API key (401/403) is a provider failure (502), logged with the fix, not a refusal of the customer', async () => {
  for (const status of [401, 403]) {
    const logged: { detail: Record<string, unknown>; message: string }[] = [];
    const misconfigured = new PersonaProvider(
      settings,
      () => now,
      (async () => new Response('{"errors":[{"title":"Unauthorized"}]}', { status })) as typeof fetch,
      (detail, message) => logged.push({ detail, message }),
    );
    const failure = misconfigured.createOrResume({ reference: 'r', currency: 'USD', origin: '' });
    await expect(failure).rejects.toThrow(ProviderFailed);
    await expect(failure).rejects.not.toThrow(/PERSONA_API_KEY/); // the fix is for the operator's logs, not the customer
    expect(logged).toEqual([
      { detail: { status, title: 'Unauthorized' }, message: expect.stringMatching(/PERSONA_API_KEY/) },
    ]);
  }
});

test('22.8 a correctly signed callback whose body is not JSON is a 400', () => {
  const persona = new PersonaProvider(settings, () => now);
  for (const body of ['not json', '{"data":', '']) {
    let thrown: unknown;
    try {
      persona.verifyCallback(body, { 'persona-signature': sign(body) });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(CallbackRejected);
    expect(thrown).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Callback body is not JSON' });
  }
});
