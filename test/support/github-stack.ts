/**
 * The whole stack with GitHub sign-in on (Facebook and Google stay off), against a fake GitHub on
 * loopback: the identity tests' own fake, a real HTTP server speaking GitHub's API.
 */
import { startFakeGitHub, type FakeProvider, type GitHubAccount } from '../../services/identity/test/support/fake-providers';
import { startTestStack, type TestStack } from './stack';

export interface GitHubStack {
  stack: TestStack;
  github: FakeProvider<GitHubAccount>;
  /** Stops the stack, then the fake (also when the stack's stop rejects: a response off the OpenAPI document). */
  stop(): Promise<void>;
}

export async function startStackWithGitHub(env: Record<string, string> = {}): Promise<GitHubStack> {
  const github = await startFakeGitHub();
  let stack: TestStack;
  try {
    stack = await startTestStack({ env: { ...env, SOCIAL_PROVIDERS: 'github', GITHUB_API_URL: github.url } });
  } catch (err) {
    await github.close();
    throw err;
  }
  return {
    stack,
    github,
    async stop() {
      try {
        await stack.stop();
      } finally {
        await github.close();
      }
    },
  };
}
