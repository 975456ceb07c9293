import request from 'supertest';
import { APP_HEADERS as APP, USER_HEADERS as USER, simulatorWithClock } from '../testing';

describe('batch compliance: POST /2/compliance/jobs, GET /2/compliance/jobs/:id and the signed storage', () => {
  const sim = simulatorWithClock();
  const pathOf = (address: string) => {
    const url = new URL(address);
    return `${url.pathname}${url.search}`;
  };

  it('creates a job with signed upload and download addresses, one open job per type, app-only', async () => {
    await request(sim.app).post('/2/compliance/jobs').set(USER).send({ type: 'tweets' }).expect(403);
    const created = await request(sim.app).post('/2/compliance/jobs').set(APP).send({ type: 'tweets', name: 'nightly' }).expect(200);
    expect(created.body.data).toMatchObject({ type: 'tweets', name: 'nightly', status: 'created', resumable: false, id: expect.stringMatching(/^\d+$/) });
    expect(created.body.data.upload_url).toMatch(/\/_storage\/compliance\/\d+\/upload\?signature=[0-9a-f]{32}$/);
    expect(Date.parse(created.body.data.upload_expires_at) - Date.parse(created.body.data.created_at)).toBe(15 * 60_000);
    const again = await request(sim.app).post('/2/compliance/jobs').set(APP).send({ type: 'tweets' }).expect(400);
    expect(again.body.errors[0].message).toMatch(/already in progress/);
    await request(sim.app).post('/2/compliance/jobs').set(APP).send({ type: 'posts' }).expect(400);
    // Let the next test open its own.
    await request(sim.app).put(pathOf(created.body.data.upload_url)).set('content-type', 'text/plain').send('1\n').expect(200);
    await request(sim.app).get(`/2/compliance/jobs/${created.body.data.id}`).set(APP).expect(200);
  });

  it('takes the ids as text, then answers only the ids X acts on, one JSON object a line', async () => {
    const kept = sim.state.injectPost({ author: 'stays', text: 'still here' });
    const gone = sim.state.injectPost({ author: 'leaves', text: 'soon deleted' });
    const hidden = sim.state.injectPost({ author: 'hider', text: 'going private' });
    const created = await request(sim.app).post('/2/compliance/jobs').set(APP).send({ type: 'tweets' }).expect(200);
    const job = created.body.data;
    const wrong = pathOf(job.upload_url).replace(/signature=\w+/, 'signature=0000');
    await request(sim.app).put(wrong).set('content-type', 'text/plain').send('1').expect(403);
    await request(sim.app).get(pathOf(job.download_url)).expect(404);
    await request(sim.app).put(pathOf(job.upload_url)).set('content-type', 'text/plain').send(`${kept.id}\n${gone.id}\r\n${hidden.id}\n`).expect(200);
    sim.state.deletePost(gone.id);
    const user = sim.state.store.userById(hidden.authorId);
    if (user) user.protected = true;
    const status = await request(sim.app).get(`/2/compliance/jobs/${job.id}`).set(APP).expect(200);
    expect(status.body.data.status).toBe('complete');
    const results = await request(sim.app).get(pathOf(job.download_url)).expect(200);
    const lines = results.text.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines).toEqual([
      { id: gone.id, action: 'delete', created_at: expect.any(String), redacted_at: expect.any(String), reason: 'deleted' },
      { id: hidden.id, action: 'delete', created_at: new Date(hidden.createdAt).toISOString(), redacted_at: expect.any(String), reason: 'protected' },
    ]);
    // The upload address takes one upload.
    await request(sim.app).put(pathOf(job.upload_url)).set('content-type', 'text/plain').send('1').expect(403);
  });
});
