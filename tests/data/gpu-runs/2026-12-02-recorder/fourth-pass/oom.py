# An OOM as a user meets it: HF GPT-2 (from its config), bf16 autocast, AdamW, batch too
# large for a 16 GiB cap (set_per_process_memory_fraction).
import torch
from transformers import GPT2Config, GPT2LMHeadModel
torch.cuda.set_per_process_memory_fraction(16 * 2**30 / torch.cuda.get_device_properties(0).total_memory)
model = GPT2LMHeadModel(GPT2Config()).cuda().train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
ids = torch.randint(0, 50257, (32, 1024), device="cuda")
for step in range(2):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    opt.step()
    opt.zero_grad()
