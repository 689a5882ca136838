//! Where a recording keeps its copies: chunks that never move once
//! allocated, so the pointers written into copied structures stay valid
//! until the recording is reset.

/// Bytes per chunk; larger copies get a chunk of their own.
const CHUNK: usize = 64 * 1024;

#[derive(Default)]
pub struct Arena {
    /// Chunks as `u128`s so that every chunk starts 16-byte aligned.
    chunks: Vec<Box<[u128]>>,
    /// Bytes used of the last chunk.
    used: usize,
}

impl Arena {
    /// Forgets every copy (the chunks are kept for reuse if small).
    pub fn clear(&mut self) {
        self.chunks.truncate(1);
        if self.chunks.first().is_some_and(|c| c.len() * 16 != CHUNK) {
            self.chunks.clear();
        }
        self.used = 0;
    }

    /// Room for `size` bytes aligned to `align` (at most 16).
    fn alloc(&mut self, size: usize, align: usize) -> *mut u8 {
        debug_assert!(align.is_power_of_two() && align <= 16);
        let start = self.used.next_multiple_of(align.max(1));
        let fits = self
            .chunks
            .last()
            .is_some_and(|c| start + size <= c.len() * 16);
        if !fits {
            let words = size.max(CHUNK).div_ceil(16);
            self.chunks.push(vec![0u128; words].into_boxed_slice());
            self.used = 0;
            return self.alloc(size, align);
        }
        self.used = start + size;
        let chunk = self
            .chunks
            .last_mut()
            .map_or(std::ptr::null_mut(), |c| c.as_mut_ptr());
        // SAFETY: `start + size` is within the chunk (checked above).
        unsafe { chunk.cast::<u8>().add(start) }
    }

    /// A copy of `size` bytes at `src`.
    ///
    /// # Safety
    /// `src` is valid for reads of `size` bytes.
    pub unsafe fn copy(&mut self, src: *const u8, size: usize, align: usize) -> *const u8 {
        let dst = self.alloc(size, align);
        // SAFETY: per this function's contract; `dst` is fresh room of `size` bytes.
        unsafe { std::ptr::copy_nonoverlapping(src, dst, size) };
        dst
    }

    /// A copy of the NUL-terminated string at `s` (null stays null).
    ///
    /// # Safety
    /// `s` is null or a NUL-terminated string.
    pub unsafe fn copy_cstr(&mut self, s: *const std::ffi::c_char) -> *const std::ffi::c_char {
        if s.is_null() {
            return s;
        }
        // SAFETY: per this function's contract.
        let bytes = unsafe { std::ffi::CStr::from_ptr(s) }.to_bytes_with_nul();
        // SAFETY: `bytes` is a live slice.
        unsafe { self.copy(bytes.as_ptr(), bytes.len(), 1) }.cast()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_stay_put_and_aligned_as_the_arena_grows() {
        let mut a = Arena::default();
        let big = vec![7u8; 3 * CHUNK];
        // SAFETY: live sources of the sizes given.
        let (first, second, third) = unsafe {
            (
                a.copy([1u8, 2, 3].as_ptr(), 3, 1),
                a.copy(big.as_ptr(), big.len(), 16),
                a.copy(9u64.to_ne_bytes().as_ptr(), 8, 8),
            )
        };
        assert_eq!(second as usize % 16, 0);
        assert_eq!(third as usize % 8, 0);
        // SAFETY: all three point into the arena.
        unsafe {
            assert_eq!(std::slice::from_raw_parts(first, 3), [1, 2, 3]);
            assert_eq!(*second.add(3 * CHUNK - 1), 7);
            assert_eq!(*third.cast::<u64>(), 9);
        }
    }
}
