/// How many threads parallel work uses when the caller does not say.
public enum Parallelism {
    /// The default number of threads (and concurrent tasks) for k-means, cosine search and data
    /// generation: 2.
    ///
    /// It is a fixed number rather than the machine's core count because parallel sums are merged
    /// in an order that depends on the thread count: the same seed gives the same numbers, bit for
    /// bit, only at the same thread count. A fixed default keeps results identical across machines;
    /// pass a larger count to use more cores.
    public static let defaultThreadCount = 2
}
