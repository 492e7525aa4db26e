"""Language-model agents: any OpenAI-compatible chat-completions endpoint playing through the
harness.

``client`` (one endpoint: requests, retries with backoff, token counts; the standard library only)
and ``agent`` (:class:`~wordle_agents.llm.agent.LLMAgent`: each game one chat, in the words of
:class:`~wordle_gym.envs.text.WordleTextEnv`, many games at once).

May import: wordle_gym.core, wordle_gym.utils, wordle_gym.envs, wordle_gym.harness,
wordle_agents.llm; numpy, torch, tqdm.
"""
