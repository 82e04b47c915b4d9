# asyncio.TaskGroup (Python 3.11) collects the failures of its tasks into an ExceptionGroup,
# printed with '|'-prefixed sub-tracebacks.
import asyncio
import torch

weights = torch.randn(128, 64)


async def embed(shard):
    await asyncio.sleep(0)
    return shard @ weights


async def main():
    async with asyncio.TaskGroup() as tg:
        tg.create_task(embed(torch.randn(10, 128)))
        tg.create_task(embed(torch.randn(10, 100)))
        tg.create_task(embed(torch.randn(10, 96)))


asyncio.run(main())
