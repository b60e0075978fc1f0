# a tiny run for the CPU: a few iterations of a 2-layer model over the generated tokens
out_dir = "out-tiny"
eval_interval = 10
eval_iters = 2
max_iters = 40
batch_size = 4
block_size = 32
n_layer = 2
n_head = 2
n_embd = 32
gradient_accumulation_steps = 2
learning_rate = 1e-3
warmup_iters = 4
lr_decay_iters = 40
