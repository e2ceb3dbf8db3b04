# SPDX-License-Identifier: MIT
# frames_train.py - workloads of tests/gpu/frames.sh (docs/cli.md, "Frames"), built from
# configs (no download):
#   gpt2    HF GPT-2 124M, batch 8, seq 1024, AdamW, 2 steps
#   bert    HF BERT-base MLM, batch 16, seq 512, AdamW, 2 steps
#   oom     torch.empty past the card, caught (the OOM's asked-by must name this file)
#   lit     a LightningModule whose training_step calls self.net (no root forward)
import sys

import torch

what = sys.argv[1]
dev = "cuda"


def hf_steps(model, batch, seq, vocab, steps=2):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for _ in range(steps):
        ids = torch.randint(0, vocab, (batch, seq), device=dev)
        loss = model(input_ids=ids, labels=ids).loss  # FRAMES-USER-LINE
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    torch.cuda.synchronize()


if what == "gpt2":
    from transformers import GPT2Config, GPT2LMHeadModel
    cfg = GPT2Config()
    hf_steps(GPT2LMHeadModel(cfg).to(dev), 8, 1024, cfg.vocab_size)
elif what == "bert":
    from transformers import BertConfig, BertForMaskedLM
    cfg = BertConfig()
    hf_steps(BertForMaskedLM(cfg).to(dev), 16, 512, cfg.vocab_size)
elif what == "oom":
    keep = torch.empty(1 << 30, device=dev)
    try:
        x = torch.empty(200 << 30, dtype=torch.uint8, device=dev)  # FRAMES-OOM-LINE: past the 140 GiB card
    except torch.OutOfMemoryError:
        print("oom caught")
elif what == "lit":
    import lightning as L

    class Lit(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(),
                                           torch.nn.Linear(4096, 1024))

        def training_step(self, batch, i):
            return self.net(batch[0]).square().mean()

        def configure_optimizers(self):
            return torch.optim.AdamW(self.parameters(), lr=1e-4)

    data = torch.utils.data.TensorDataset(torch.randn(256, 1024))
    loader = torch.utils.data.DataLoader(data, batch_size=64)
    L.Trainer(max_steps=3, accelerator="gpu", devices=1, logger=False, enable_checkpointing=False,
              enable_progress_bar=False, enable_model_summary=False).fit(Lit(), loader)
