//! Shannon entropy and nDPI's entropy classes.

// --------------------------------------------------------------------------------- entropy

/// Shannon entropy of `data` in bits per byte, in [0, 8] (`ndpi_entropy`, ndpi_utils.c); 0 for
/// empty input. Counts live on the stack.
pub fn shannon_entropy(data: &[u8]) -> f32 {
    if data.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &b in data {
        counts[b as usize] += 1;
    }
    shannon_of_counts(&counts, data.len())
}

/// Is the Shannon entropy of `data` at or above nDPI's plain-text bound
/// ([`ENTROPY_PLAINTEXT_BELOW`])? Equal to `shannon_entropy(data) >= ENTROPY_PLAINTEXT_BELOW`,
/// cheaper: the entropy lies between the min-entropy, log2(n / most frequent count), and
/// log2(distinct values), so when either bound settles the question (fewer than 31 distinct
/// bytes; or no byte value more frequent than 1/30.7 of them, as in encrypted or compressed
/// data) no logarithm of the counts is needed.
pub fn entropy_high(data: &[u8]) -> bool {
    if data.len() < 31 {
        return false;
    }
    let mut counts = [0u32; 256];
    for &b in data {
        counts[b as usize] += 1;
    }
    let (mut distinct, mut most) = (0u32, 0u32);
    for &c in &counts {
        distinct += u32::from(c > 0);
        most = most.max(c);
    }
    if distinct < 31 {
        return false;
    }
    // log2(n / most) >= bound  <=>  n >= most * 2^bound.
    if data.len() as f32 >= most as f32 * ENTROPY_PLAINTEXT_BELOW.exp2() {
        return true;
    }
    shannon_of_counts(&counts, data.len()) >= ENTROPY_PLAINTEXT_BELOW
}

fn shannon_of_counts(counts: &[u32; 256], len: usize) -> f32 {
    let n = len as f32;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f32 / n;
            -p * p.log2()
        })
        .sum::<f32>()
        .clamp(0.0, 8.0)
}

/// nDPI's entropy classes (`NDPI_ENTROPY_*` in ndpi_main.h): below this is plain text, and
/// nDPI never raises Susp Entropy.
pub const ENTROPY_PLAINTEXT_BELOW: f32 = 4.941;
/// At or above: "Compressed Executable" in nDPI's wording.
pub const ENTROPY_EXECUTABLE_PACKED: f32 = 6.677;
/// At or above: "Encrypted Executable".
pub const ENTROPY_EXECUTABLE_ENCRYPTED: f32 = 7.174;
/// At or above: "Encrypted or Random".
pub const ENTROPY_ENCRYPTED_OR_RANDOM: f32 = 7.312;
