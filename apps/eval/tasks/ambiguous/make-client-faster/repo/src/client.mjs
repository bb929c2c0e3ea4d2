export async function getUser(fetcher, id) {
  const response = await fetcher(`/users/${id}`);
  return response.json();
}
