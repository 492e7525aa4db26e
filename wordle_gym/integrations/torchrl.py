"""The torch vector env as a TorchRL ``EnvBase``: tensors stay on the device, nothing goes through
numpy.

    from wordle_gym.integrations.torchrl import WordleTorchRLEnv
    from torchrl.envs import TransformedEnv, ActionMask
    env = TransformedEnv(WordleTorchRLEnv(num_envs=1024, device="cuda"), ActionMask())
    rollout = env.rollout(6)  # (1024, 6): observation, action_mask, action, next/reward, ...

Batch size ``(num_envs,)``. Keys: ``observation`` (float32 by default: what TorchRL's MLPs take),
``action_mask`` (bool, TorchRL's ``ActionMask`` convention), ``action`` (``Categorical`` over the
allowed words, or ``OneHot`` with ``categorical_action_encoding=False``), ``reward`` (N, 1),
``done`` / ``terminated`` / ``truncated`` (N, 1; never truncated: a game ends by its own rules), and
``turn``, ``won`` (the info keys a training loop wants). Partial resets (``"_reset"``, what
``rollout`` and the collectors send) restart only the finished games; the env underneath runs with
autoreset ``"disabled"``. Needs the ``torchrl`` extra (``pip install ".[torchrl]"`` in the
repository).
"""

from __future__ import annotations

from typing import Any

import torch

try:
    from tensordict import TensorDict, TensorDictBase
    from torchrl.data import Bounded, Categorical, Composite, OneHot, Unbounded
    from torchrl.envs import EnvBase
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise ImportError(
        f"wordle_gym.integrations.torchrl needs TorchRL ({exc}); install it with: pip install "
        "'.[torchrl]'"
    ) from None

from wordle_gym.envs.multi import make_vector_env


class WordleTorchRLEnv(EnvBase):
    """``num_envs`` games of :class:`~wordle_gym.envs.vector.WordleVectorEnv` (of
    ``MultiWordleVectorEnv`` for ``boards=K > 1``) as a TorchRL environment.

    ``options`` are the env's (``answers``, ``hard_mode``, ``action_mask``, ``reward``, ...);
    ``obs_dtype`` defaults to "float32" here. ``check_actions=False`` skips the host reads that
    validate actions (see :class:`~wordle_gym.envs.vector.WordleVectorEnv`)."""

    def __init__(
        self,
        num_envs: int = 1,
        *,
        device: torch.device | str | None = "auto",
        categorical_action_encoding: bool = True,
        check_actions: bool = True,
        **options: Any,
    ) -> None:
        options.setdefault("obs_dtype", "float32")
        if "autoreset_mode" in options or "mask_dtype" in options:
            raise TypeError(
                "WordleTorchRLEnv sets autoreset_mode and mask_dtype itself (disabled, bool)"
            )
        self.wordle = make_vector_env(  # multi-board for boards=K > 1
            num_envs,
            device=device,
            autoreset_mode="disabled",
            check_actions=check_actions,
            mask_dtype="bool",
            **options,
        )
        dev = self.wordle.device
        super().__init__(device=dev, batch_size=torch.Size([num_envs]))
        space = self.wordle.single_observation_space
        n, words = num_envs, self.wordle.single_action_space.n
        # any observation's shape
        low = torch.as_tensor(space.low, device=dev).expand(n, *space.shape)
        high = torch.as_tensor(space.high, device=dev).expand(n, *space.shape)
        max_guesses = self.wordle.config.max_guesses
        self.observation_spec = Composite(
            observation=Bounded(
                low,
                high,
                shape=(n, *space.shape),
                dtype=self.wordle.game.config.torch_obs_dtype,
                device=dev,
            ),
            action_mask=Categorical(2, shape=(n, words), dtype=torch.bool, device=dev),
            turn=Bounded(0, max_guesses, shape=(n, 1), dtype=torch.int64, device=dev),
            won=Categorical(2, shape=(n, 1), dtype=torch.bool, device=dev),
            shape=(n,),
            device=dev,
        )
        if categorical_action_encoding:
            self.action_spec = Categorical(words, shape=(n,), device=dev)
        else:
            self.action_spec = OneHot(words, shape=(n, words), device=dev)
        self.reward_spec = Unbounded(shape=(n, 1), device=dev)
        done = Categorical(2, shape=(n, 1), dtype=torch.bool, device=dev)
        self.done_spec = Composite(
            done=done, terminated=done.clone(), truncated=done.clone(), shape=(n,), device=dev
        )

    def _out(
        self, obs: torch.Tensor, infos: dict[str, torch.Tensor], **extra: torch.Tensor
    ) -> TensorDictBase:
        fields = {
            "observation": obs,
            "action_mask": infos["action_mask"],
            "turn": infos["turn"].unsqueeze(-1),
            "won": infos["won"].unsqueeze(-1),
            **extra,
        }
        return TensorDict(fields, batch_size=self.batch_size, device=self.device)

    def _reset(self, tensordict: TensorDictBase | None = None, **kwargs: Any) -> TensorDictBase:
        reset = None if tensordict is None else tensordict.get("_reset", None)
        if reset is None or not self._started:
            obs, infos = self.wordle.reset()
        else:
            obs, infos = self.wordle.reset(options={"reset_mask": reset.reshape(self.batch_size)})
        self._started = True
        ended = torch.zeros((*self.batch_size, 1), dtype=torch.bool, device=self.device)
        return self._out(obs, infos, done=ended, terminated=ended.clone(), truncated=ended.clone())

    def _step(self, tensordict: TensorDictBase) -> TensorDictBase:
        action = tensordict.get("action")
        if action.shape[-1:] == (self.wordle.single_action_space.n,) and action.ndim == 2:
            action = self._from_one_hot(action)
        obs, reward, terminated, truncated, infos = self.wordle.step(
            action.reshape(self.batch_size)
        )
        end = terminated.unsqueeze(-1)
        return self._out(
            obs,
            infos,
            reward=reward.unsqueeze(-1),
            done=end | truncated.unsqueeze(-1),
            terminated=end,
            truncated=truncated.unsqueeze(-1),
        )

    def _from_one_hot(self, action: torch.Tensor) -> torch.Tensor:
        """The word of each one-hot row; with ``check_actions``, a row that is not exactly one 1
        (all zeros, or several) is an error, not word 0 (a host read, as the env's own action
        check)."""
        if self.wordle.check_actions:
            ones = (action != 0).sum(-1)
            bad = (ones != 1) | ((action != 0) & (action != 1)).any(-1)
            if bool(bad.any()):
                row = int(bad.nonzero()[0, 0])
                raise ValueError(
                    f"one-hot action of game {row} has {int(ones[row])} nonzero entries; expected "
                    "exactly one 1"
                )
        return action.long().argmax(-1)

    def _set_seed(self, seed: int | None) -> None:
        self.wordle.reset(seed=seed)
        self._started = True

    _started = False
